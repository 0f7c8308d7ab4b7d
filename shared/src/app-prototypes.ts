import { IncomingMessage, ServerResponse, type RequestListener, type ServerOptions } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Request and response classes whose instances are born with an Express app's own prototypes
 * (`app.request`, `app.response`), for the server that serves the app (issue 29).
 *
 * Express's `app.handle` gives every request and response the app's prototypes with
 * `Object.setPrototypeOf`. Born with them, the call finds nothing to change and returns at once
 * (V8 checks the prototype first). Swapped on each request, on Node 20 (V8 11.3) a fifth of
 * everything a request allocates outlives the young generation's collection and is promoted, to be
 * freed only by a full collection. On Node 24, or with the prototypes already in place, about 2 %
 * does (`--trace-gc-nvp`, `new_space_survive_rate`; docs/performance.md). What the app sees is the
 * same object either way: the same prototype chain, `instanceof IncomingMessage` and
 * `instanceof ServerResponse` included.
 *
 * Node's own constructors run on the new object (they are plain functions on Node 20 to 24, and
 * `app-prototypes.test.ts` fails the day one becomes a class). A listener that is not an Express
 * app gets no classes: `{}`.
 */
export function appPrototypeClasses(app: RequestListener): Pick<ServerOptions, 'IncomingMessage' | 'ServerResponse'> {
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
