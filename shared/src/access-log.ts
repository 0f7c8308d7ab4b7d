import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { redactSecrets } from './redact';

declare module 'node:http' {
  interface IncomingMessage {
    /** The request id (`requestId` stage). */
    id: string;
    /** A logger whose lines carry this request's id; made on first use, since most requests log nothing else. */
    log: Logger;
  }
}

/** Where a request keeps its `req.log` once made (an own field, set on first use only). */
const REQUEST_LOG = Symbol('requestLog');
type WithRequestLog = IncomingMessage & { [REQUEST_LOG]?: Logger };

/** Who called the pets-service, when its authentication stage knows (`res.locals.caller`). */
interface CallerLocals {
  caller?: { iss?: string; sub?: string };
}

export interface AccessLogOptions {
  /** A response was sent in full: its method, status and when its request arrived (`performance.now()`). */
  onResponse?: (method: string, status: number, started: number) => void;
}

/**
 * The access log: one line per request, written when the response is done, at a level that says
 * whether someone must look: `error` for the server failing (5xx), `info` for everything else,
 * refusals (4xx) and the deliberate 501 of unimplemented operations included. No stack is invented
 * for a status code: real exceptions are logged, with their stack, where they are caught.
 *
 * `logger` takes the access lines (buffered in production); `events` the lines stages write through
 * `req.log` (warnings, errors: written at once). `onResponse` is told of each response sent (not
 * of one abandoned) from the same listener, so that metrics need no listener and closure of their
 * own per request (issue 29).
 *
 * (pino-http did this with a child logger and a serializer pass per request, and logged a 501 as
 * "request errored" with a made-up Error.)
 */
export function accessLog(app: Express, logger: Logger, events: Logger = logger, { onResponse }: AccessLogOptions = {}): RequestHandler {
  // `req.log` is a getter on this app's request prototype, defined once: a per-request
  // `Object.defineProperty` cost an accessor and a closure on every request (issue 29).
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: WithRequestLog): Logger {
      return (this[REQUEST_LOG] ??= events.child({ reqId: this.id }));
    },
  });
  return (req, res, next) => {
    const started = performance.now();
    res.once('close', () => {
      if (onResponse && res.writableFinished) onResponse(req.method, res.statusCode, started);
      const caller = (res.locals as CallerLocals).caller;
      writeAccessLine(logger, res, req.id, req.originalUrl, started, caller ? { caller: caller.iss, subject: caller.sub } : undefined);
    });
    next();
  };
}

/**
 * The access line of one request, once its response is done (or abandoned). `started` is
 * `performance.now()` when the request arrived; `extra` adds fields (who called). The URL is logged
 * with API keys, bearer values and credential parameters redacted: a key sent in the query string
 * is refused, but it was still sent, and a log is no place for it.
 */
function writeAccessLine(logger: Logger, res: ServerResponse, reqId: string, url: string, started: number, extra?: object): void {
  const status = res.statusCode;
  const line = {
    reqId,
    method: res.req.method,
    url: redactSecrets(url),
    status,
    ms: Math.round((performance.now() - started) * 10) / 10,
    remoteAddress: res.req.socket.remoteAddress,
    ...extra,
  };
  if (!res.writableFinished) logger.info({ ...line, aborted: true }, 'request aborted before its response was complete');
  else if (status >= 500 && status !== 501) logger.error(line, 'request failed');
  else logger.info(line, 'request completed');
}
