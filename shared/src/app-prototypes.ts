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
 * On V8 11 and 12 (Node 20 and 22) the swap makes a fifth of what a request allocates outlive the
 * young generation's collection, to be promoted and freed only by a full collection; with the
 * prototypes in place about 2 % does (`--trace-gc-nvp`, `new_space_survive_rate`;
 * docs/performance.md). V8 13 (Node 24) keeps no garbage alive for it, but the swap itself still
 * costs: with the classes (their objects sized for their fields, below) a 429 and a proxied request
 * cost Node 24 9–14 % less CPU (`bench/gc.ts`, alternated). So on every Node; for a listener that is
 * not an Express app it gives no classes: `{}`.
 *
 * Node's own constructors run on the new object (they are plain functions on Node 20 to 24, and
 * `app-prototypes.test.ts` fails the day one becomes a class).
 */
export function appPrototypeClasses(app: RequestListener): Pick<ServerOptions, 'IncomingMessage' | 'ServerResponse'> {
  const { request, response } = app as Partial<Record<'request' | 'response', unknown>>;
  // An Express app's prototypes inherit from Node's, so `instanceof` holds for them as for their instances.
  if (!(request instanceof IncomingMessage) || !(response instanceof ServerResponse)) return {};
  // Each constructor declares, in its own body, every field its object will have: V8 sizes an object
  // by the `this.x =` assignments of its constructor's own body (a helper function would not count;
  // these constructors have none of their own otherwise), so the fields live in the object and later
  // stores only replace them (issue 29, docs/performance.md).
  // - Node's own fields (those Node 20 to 24 all give a request or a response, in its constructors
  //   or as the server makes it), first. Without them a response was born with about ten slots for
  //   Node's forty-two fields, and when Node's constructor stored one of its symbol fields (a keyed
  //   store) with more than twelve spilled out of the object, V8 turned it into a dictionary (its
  //   limit for keyed stores): every response on Node 20 lived as a hash table, each read of a field
  //   a lookup (`JSObject::MigrateToMap`, `NameDictionary::Add`, megamorphic loads). A 429 cost 217 k
  //   instructions, 180 k with them (and on Node 24 a request was a dictionary as well). Node stores each of them next, so none keeps the `undefined`
  //   written here; `app-prototypes.test.ts` checks that each is one of Node's own data fields and
  //   that both objects are born with fast properties.
  // - The fields Express 5 and its router add to each request later (`app.handle`'s `res`, the
  //   router's `next`, `baseUrl`, `originalUrl`, `params`, `route`, its matched route and, on an
  //   error, the errors it has seen; parseurl's `_parsedUrl`), the request id (`request-id.ts`), the
  //   response's `locals` and its slot among the responses in flight (`in-flight.ts`). Added later,
  //   each was a new property at a store that sees requests in every shape the pipeline makes: V8
  //   added it in its runtime, moving the object to a new map (`Runtime_KeyedStoreIC_Slow`): 24 k of
  //   a 429's 267 k instructions on Node 20.
  function AppRequest(this: Record<string | symbol, unknown>, socket: Socket): void {
    this._events = undefined;
    this._readableState = undefined;
    this._maxListeners = undefined;
    this.socket = undefined;
    this.httpVersionMajor = undefined;
    this.httpVersionMinor = undefined;
    this.httpVersion = undefined;
    this.complete = undefined;
    this.rawHeaders = undefined;
    this.rawTrailers = undefined;
    this.joinDuplicateHeaders = undefined;
    this.aborted = undefined;
    this.upgrade = undefined;
    this.url = undefined;
    this.method = undefined;
    this.statusCode = undefined;
    this.statusMessage = undefined;
    this.client = undefined;
    this._consuming = undefined;
    this._dumped = undefined;
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
  function AppResponse(this: Record<string | symbol, unknown>, req: IncomingMessage, options?: unknown): void {
    this._events = undefined;
    this._eventsCount = undefined;
    this._maxListeners = undefined;
    this.outputData = undefined;
    this.outputSize = undefined;
    this.writable = undefined;
    this.destroyed = undefined;
    this._last = undefined;
    this.chunkedEncoding = undefined;
    this.shouldKeepAlive = undefined;
    this.maxRequestsOnConnectionReached = undefined;
    this._defaultKeepAlive = undefined;
    this.useChunkedEncodingByDefault = undefined;
    this.sendDate = undefined;
    this._removedConnection = undefined;
    this._removedContLen = undefined;
    this._removedTE = undefined;
    this.strictContentLength = undefined;
    this._contentLength = undefined;
    this._hasBody = undefined;
    this._trailer = undefined;
    this.finished = undefined;
    this._headerSent = undefined;
    this._closed = undefined;
    this._header = undefined;
    this._keepAliveTimeout = undefined;
    this._onPendingData = undefined;
    this.req = undefined;
    this._sent100 = undefined;
    this._expect_continue = undefined;
    this._maxRequestsPerSocket = undefined;
    (ServerResponse as unknown as (this: ServerResponse, req: IncomingMessage, options?: unknown) => void).call(this as unknown as ServerResponse, req, options);
    this.locals = undefined;
    this[IN_FLIGHT_SLOT] = undefined;
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
