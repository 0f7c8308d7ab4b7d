import { IncomingMessage, ServerResponse, type RequestListener, type ServerOptions } from 'node:http';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { IN_FLIGHT_SLOT } from './in-flight';

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
  // Every field Express 5 and its router add to each request later (`app.handle`'s `res`, the
  // router's `next`, `baseUrl`, `originalUrl`, `params`, `route`, its matched route and, on an
  // error, the errors it has seen; parseurl's `_parsedUrl`) and the request id (`request-id.ts`),
  // given as the request is made. Added later, each was a new property on an object of forty,
  // spilled out of the object (V8 sizes an object by the `this.x =` assignments of its
  // constructor, here none), at a store that sees requests in every shape the pipeline makes: V8
  // then added it in its runtime, moving the object to a new map (`Runtime_KeyedStoreIC_Slow`,
  // `JSObject::MigrateToMap`): 24 k of a 429's 267 k instructions on Node 20 (issue 29,
  // docs/performance.md). Written here, in the constructor's own body (a helper function would not
  // count), they size the object and later stores only replace.
  function AppRequest(this: Record<string | symbol, unknown>, socket: Socket): void {
    IncomingMessage.call(this as unknown as IncomingMessage, socket);
    this.res = undefined;
    this.next = undefined;
    this.baseUrl = undefined;
    this.originalUrl = undefined;
    this.params = undefined;
    this.route = undefined;
    this._parsedUrl = undefined;
    this.id = undefined;
    this[MATCHED_ROUTE] = undefined;
    this[PUBLISHED_ERRORS] = undefined;
  }
  AppRequest.prototype = request;
  function AppResponse(this: ServerResponse, req: IncomingMessage, options?: unknown): void {
    (ServerResponse as unknown as (this: ServerResponse, req: IncomingMessage, options?: unknown) => void).call(this, req, options);
    // Express's `app.handle` gives every response its `locals` (`if (!res.locals)`), and the server
    // its slot among the responses in flight (`in-flight.ts`), as above.
    (this as unknown as { locals: unknown }).locals = undefined;
    (this as unknown as Record<symbol, unknown>)[IN_FLIGHT_SLOT] = undefined;
  }
  AppResponse.prototype = response;
  return { IncomingMessage: AppRequest as unknown as typeof IncomingMessage, ServerResponse: AppResponse as unknown as typeof ServerResponse };
}

/**
 * The symbol Express's router (2.x) keys each request's matched route with; private to it, so asked
 * of the copy Express itself loads. A symbol of our own if that ever moves: the field is then merely
 * unused (`app-prototypes.test.ts` fails first: it sees Express add a field after birth).
 */
function routerMatchedRouteSymbol(): symbol {
  try {
    const express = createRequire(__filename).resolve('express');
    const symbols = createRequire(express)('router/lib/symbols') as { matchedRoute?: unknown };
    if (typeof symbols.matchedRoute === 'symbol') return symbols.matchedRoute;
  } catch {
    // Not there: see above.
  }
  return Symbol('router.matchedRoute (not found)');
}

const MATCHED_ROUTE = routerMatchedRouteSymbol();
/** The router's record of the errors it has seen on a request (`Symbol.for`, shared by its copies). */
const PUBLISHED_ERRORS = Symbol.for('router.tracing.publishedErrors');

/** Whether Express's prototype swap is measured to keep garbage alive on this V8 (major version below 13; ADR 0040). */
export function prototypeSwapIsCostly(v8Version: string): boolean {
  return Number.parseInt(v8Version, 10) < 13;
}
