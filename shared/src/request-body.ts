import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { ApiError, declaresBody } from './errors';
import { continueIfExpected } from './http-server';

/**
 * The one way a request body is read, on every port of both services (`/v1`, the portal's forms,
 * the admin API, the pets-service): never more than the route accepts, never for longer than the
 * body deadline, and never to the end of a body that is refused.
 *
 * body-parser (Express's own readers) reads the rest of a request before it passes on its own 413
 * or a parse error, so that the connection can serve the next request: a client that declared a
 * gigabyte had the whole gigabyte read, and a form trickled a byte at a time was held for as long
 * as the client liked. Here a refusal closes the connection instead (issue 24, item 1).
 */

export interface BodyLimits {
  /** The most bytes the route accepts. */
  maxBytes: number;
  /** The whole body must arrive within this, counted from when reading starts: else 408 request_timeout. */
  timeoutMs: number;
  /** The 413's message in the route's own words (default: "The request body is larger than N KiB."). */
  tooLargeMessage?: string;
}

const KIB = 1024;
const NO_BODY = Buffer.alloc(0);

/** 413 payload_too_large for a route that accepts at most `maxBytes`. The one way it is worded. */
export function payloadTooLarge(maxBytes: number, message?: string): ApiError {
  if (message !== undefined) return new ApiError('payload_too_large', message);
  if (maxBytes === 0) return new ApiError('payload_too_large', 'This request takes no body.');
  return new ApiError('payload_too_large', `The request body is larger than ${maxBytes / KIB} KiB.`);
}

function declaredOver(req: IncomingMessage, maxBytes: number): boolean {
  // A body of unknown length on a route that takes none is over its limit too.
  if (maxBytes === 0) return declaresBody(req);
  return Number(req.headers['content-length']) > maxBytes;
}

/**
 * Refuses at once, without reading a byte of it, a request whose declared body is larger than
 * `maxBytes` (0: the route takes no body at all): for routes that read no body, or before the
 * checks that come ahead of reading one.
 */
export function refuseBodiesOver(maxBytes: number, message?: string): RequestHandler {
  return (req, res, next) => {
    if (!declaredOver(req, maxBytes)) return next();
    refuse(req, res);
    next(payloadTooLarge(maxBytes, message));
  };
}

/**
 * Reads the request body whole, then calls `done` with it (empty when none was announced), or with
 * the refusal:
 * - declared larger than `maxBytes`: 413 at once, nothing read;
 * - a chunked body is counted as it arrives: 413 as soon as it passes the limit;
 * - not complete within `timeoutMs` from the start of reading: 408 request_timeout.
 * A refusal closes the connection (the rest of the stream cannot be trusted to be a new request);
 * what the client still sends meanwhile is discarded, never buffered. A client waiting for
 * `100 Continue` is told to send only here, once every check before the body has passed. A client
 * that goes away before the end gets nothing: `done` is never called.
 */
export function readWholeBody(req: IncomingMessage, res: ServerResponse, limits: BodyLimits, done: (error: ApiError | undefined, body: Buffer) => void): void {
  const { maxBytes, timeoutMs } = limits;
  if (!declaresBody(req)) return done(undefined, NO_BODY);
  const tooLarge = () => payloadTooLarge(maxBytes, limits.tooLargeMessage);
  if (declaredOver(req, maxBytes)) {
    refuse(req, res);
    return done(tooLarge(), NO_BODY);
  }
  continueIfExpected(req, res);

  const chunks: Buffer[] = [];
  let received = 0;
  let settled = false;
  const finish = (error?: ApiError) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('close', onClose);
    if (error) {
      refuse(req, res);
      return done(error, NO_BODY);
    }
    done(undefined, Buffer.concat(chunks, received));
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > maxBytes) return finish(tooLarge());
    chunks.push(chunk);
  };
  const onEnd = () => finish();
  // The client went away before the end: there is nobody to answer.
  const onClose = () => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
  };
  const timer = setTimeout(
    () => finish(new ApiError('request_timeout', `The request body was not received in full within ${formatSeconds(timeoutMs)}; the connection is closed.`)),
    timeoutMs,
  );
  req.on('data', onData);
  req.once('end', onEnd);
  req.once('close', onClose);
}

/**
 * Reads the body whole (`readWholeBody`), parses it and puts the value on `req.body` before `next()`;
 * a refusal of the reader or an error of `parse` goes to `next(error)`. The JSON bodies of both
 * services and the portal's forms are read this way.
 */
export function readParsedBody(req: IncomingMessage & { body?: unknown }, res: ServerResponse, limits: BodyLimits, parse: (raw: Buffer) => unknown, next: (error?: unknown) => void): void {
  readWholeBody(req, res, limits, (readError, raw) => {
    if (readError) return next(readError);
    let body: unknown;
    try {
      body = parse(raw);
    } catch (parseError) {
      return next(parseError);
    }
    req.body = body;
    next();
  });
}

/** The answer will close the connection once written; what the client sends until then is discarded. */
function refuse(req: IncomingMessage, res: ServerResponse): void {
  if (!res.headersSent) res.setHeader('Connection', 'close');
  req.resume();
}

function formatSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
