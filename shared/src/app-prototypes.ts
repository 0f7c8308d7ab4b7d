import { IncomingMessage, ServerResponse, type RequestListener, type ServerOptions } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Request and response classes whose instances are born with an Express app's own prototypes
 * (`app.request`, `app.response`), for the server that serves the app (issue 29, ADR 0040).
 *
 * Express's `app.handle` gives every request and response the app's prototypes with
 * `Object.setPrototypeOf`. Born with them, the call finds nothing to change and returns at once
 * (V8 checks the prototype first). What the app sees is the same object either way: the same
 * prototype chain, `instanceof IncomingMessage` and `instanceof ServerResponse` included.
 *
 * Only where the swap costs (`prototypeSwapIsCostly`): on V8 11 and 12 (Node 20 and 22) a fifth of
 * what a request allocates outlives the young generation's collection and is promoted, to be freed
 * only by a full collection; with the prototypes in place, or on V8 13 (Node 24), about 2 % does
 * (`--trace-gc-nvp`, `new_space_survive_rate`; docs/performance.md). On V8 13 the classes cost more
 * than they save (the Express hop 5–70 % more CPU per request in `bench/gc.ts` runs; likely their
 * instances' fewer in-object property slots), so there, and for a listener that is not an Express
 * app, it gives no classes: `{}`.
 *
 * Node's own constructors run on the new object (they are plain functions on Node 20 to 24, and
 * `app-prototypes.test.ts` fails the day one becomes a class).
 */
export function appPrototypeClasses(app: RequestListener, v8Version = process.versions.v8): Pick<ServerOptions, 'IncomingMessage' | 'ServerResponse'> {
  if (!prototypeSwapIsCostly(v8Version)) return {};
  const { request, response } = app as Partial<Record<'request' | 'response', unknown>>;
  // An Express app's prototypes inherit from Node's, so `instanceof` holds for them as for their instances.
  if (!(request instanceof IncomingMessage) || !(response instanceof ServerResponse)) return {};
  function AppRequest(this: IncomingMessage, socket: Socket): void {
    IncomingMessage.call(this, socket);
  }
  AppRequest.prototype = request;
  function AppResponse(this: ServerResponse, req: IncomingMessage, options?: unknown): void {
    (ServerResponse as unknown as (this: ServerResponse, req: IncomingMessage, options?: unknown) => void).call(this, req, options);
  }
  AppResponse.prototype = response;
  return { IncomingMessage: AppRequest as unknown as typeof IncomingMessage, ServerResponse: AppResponse as unknown as typeof ServerResponse };
}

/** Whether Express's prototype swap is measured to keep garbage alive on this V8 (major version below 13; ADR 0040). */
export function prototypeSwapIsCostly(v8Version: string): boolean {
  return Number.parseInt(v8Version, 10) < 13;
}
