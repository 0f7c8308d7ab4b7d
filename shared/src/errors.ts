import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { FromSchema } from 'json-schema-to-ts';
import type { Logger } from 'pino';
import { sendJson } from './json-response';

/** Every error code a client can see, with its HTTP status. The single catalogue. */
export const ERROR_CATALOGUE = {
  unauthorized: 401,
  invalid_parameter: 400,
  invalid_body: 400,
  malformed_json: 400,
  unsupported_media_type: 415,
  payload_too_large: 413,
  not_found: 404,
  method_not_allowed: 405,
  rate_limited: 429,
  temporarily_banned: 429,
  not_implemented: 501,
  internal_error: 500,
  bad_gateway: 502,
  service_unavailable: 503,
  gateway_timeout: 504,
  /** The request body did not arrive in full within the body deadline. */
  request_timeout: 408,
  /** A read-only API key used a method other than GET or HEAD. */
  forbidden: 403,
  /** The resource is not in a state that allows the change (admin API: rolling a revoked, expired or already rolled key). */
  conflict: 409,
  /** A conditional header (If-Match, If-Unmodified-Since) does not hold for the resource. */
  precondition_failed: 412,
  /** A Range header asks for bytes the resource does not have. */
  range_not_satisfiable: 416,
  /** An Expect header other than 100-continue. */
  expectation_failed: 417,
  /** More request headers than a server accepts (MAX_REQUEST_HEADERS), or more than 16 KiB of them. */
  request_header_fields_too_large: 431,
  /** An Idempotency-Key already used, within its 24 hours, for a request with another body. */
  idempotency_key_reused: 422,
  /** An Idempotency-Key whose first request is still being answered. */
  idempotency_key_in_use: 409,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

/**
 * The Error shape of every refusal, as the interface description states it (`openapi/schemas.ts`
 * takes it from here, so the document imports this module and never the other way round).
 */
export const ERROR_SCHEMA = {
  type: 'object',
  required: ['code', 'message', 'status'],
  properties: {
    code: { type: 'string', enum: [...ERROR_CODES], description: 'Machine-readable error code.' },
    message: { type: 'string', description: 'Human-readable description.' },
    status: { type: 'integer', description: 'The HTTP status code.' },
  },
} as const;

/** The Error shape's three fields, derived from its schema (which lets a later version add more: clients ignore them). */
export type ErrorBody = Pick<FromSchema<typeof ERROR_SCHEMA>, 'code' | 'message' | 'status'>;

/**
 * An error meant for the client, answered in the Error shape with its headers: its code and
 * message are safe to show. ApiError is ours (a code of the catalogue); the gateway's operator
 * may add refusals of their own (gateway/src/extensions), answered by the same handler.
 */
export class ErrorAnswer extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    /** Headers the answer must carry, e.g. `Allow` or `Retry-After`. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    // An answer, not a fault: no stack trace is captured (that was a tenth of a 429's cost), so none
    // is logged either. Real faults are ordinary Errors and keep theirs.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'ErrorAnswer';
  }

  toBody(): { code: string; message: string; status: number } {
    return { code: this.code, message: this.message, status: this.status };
  }
}

/** An error of the catalogue above: its status follows from its code. */
export class ApiError extends ErrorAnswer {
  declare readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, headers: Readonly<Record<string, string>> = {}) {
    super(code, ERROR_CATALOGUE[code], message, headers);
    this.name = 'ApiError';
  }

  override toBody(): ErrorBody {
    return super.toBody() as ErrorBody;
  }
}

export function sendError(res: ServerResponse, error: ErrorAnswer): void {
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  sendJson(res, error.status, error.toBody());
}

/** The router throws a URIError (status 400) on bad percent-encoding in the path, e.g. `/pets/%E0`. */
function fromRouter(err: unknown): ApiError | undefined {
  if (err instanceof URIError && (err as URIError & { status?: number }).status === 400) {
    return new ApiError('invalid_parameter', 'The path holds invalid percent-encoding.');
  }
  return undefined;
}

/**
 * Static files (`/docs`'s assets, through `send`) answer conditional and Range requests that cannot
 * be met with an http-errors error: 412 or 416, the latter with the `Content-Range` to retry with.
 */
function fromStaticFiles(err: unknown): ApiError | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { status, headers } = err as { status?: unknown; headers?: Record<string, unknown> };
  if (status === 412) return new ApiError('precondition_failed', 'A condition of the request (If-Match or If-Unmodified-Since) does not hold for this file.');
  if (status === 416) {
    const contentRange = headers?.['Content-Range'];
    return new ApiError(
      'range_not_satisfiable',
      'The Range header asks for bytes this file does not have.',
      typeof contentRange === 'string' ? { 'Content-Range': contentRange } : {},
    );
  }
  return undefined;
}

/**
 * What a client may be told about an error, as an answer of this catalogue: an ErrorAnswer as it
 * is, or what the router or a static file meant by theirs; undefined for a fault (the services read
 * bodies with their own reader, `request-body.ts`, whose refusals are ApiErrors: no body-parser error reaches here).
 */
export function knownAnswer(err: unknown): ErrorAnswer | undefined {
  return err instanceof ErrorAnswer ? err : (fromRouter(err) ?? fromStaticFiles(err));
}

/**
 * Closes the connection with this answer when the request announced a body that has not arrived
 * in full: nobody read it, and after a refusal nobody will. A keep-alive connection would have to
 * be read to its next request: a gigabyte, if that is what was announced. Call before the head is written.
 */
export function closeIfBodyUnread(req: IncomingMessage, res: ServerResponse): void {
  if (!req.complete && declaresBody(req)) res.setHeader('Connection', 'close');
}

/** Whether the request announces a body: a transfer coding, or a Content-Length other than 0. */
export function declaresBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * The one error handler of both services: client errors in the Error shape,
 * anything unexpected logged with its stack and answered with a generic 500. A refusal of a
 * request whose body is still to come closes the connection: the body is never read.
 * Nothing goes on to Express's own final handler (an HTML page, with the stack in development,
 * logged as plain text): an answer that cannot be written (a header value an error brought that
 * Node refuses) becomes the generic 500, and an error after the head was sent ends the response.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  // The request's logger (its lines carry the request id) is asked for only to write a line: made on
  // first use, it would cost every refusal a child logger nobody writes to (issue 29: the 429 path).
  const log = (req: object): Logger => (req as { log?: Logger }).log ?? logger;
  return (err, req, res, _next) => {
    if (res.headersSent) {
      log(req).error({ err }, 'error after the answer had begun: the response is cut short');
      res.destroy();
      return;
    }
    closeIfBodyUnread(req, res);
    const known = knownAnswer(err);
    if (!known) log(req).error({ err }, 'unhandled error');
    try {
      sendError(res, known ?? internalError());
    } catch (writeError) {
      log(req).error({ err: writeError, answering: err }, 'the error answer could not be written: answered 500 instead');
      answerInternalError(res, known);
    }
  };
}

function internalError(): ApiError {
  return new ApiError('internal_error', 'The server failed to handle the request.');
}

/** The generic 500 in place of `failed`, whose headers are taken back; the connection is cut if even that cannot be written. */
function answerInternalError(res: ServerResponse, failed: ErrorAnswer | undefined): void {
  try {
    for (const name of Object.keys(failed?.headers ?? {})) {
      if (res.hasHeader(name)) res.removeHeader(name);
    }
    sendError(res, internalError());
  } catch {
    res.destroy();
  }
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new ApiError('not_found', `No resource at ${req.method} ${req.path}.`));
};

/** 405 for `method` on `path` (as the client wrote it), naming in `Allow` the methods the path offers. The one way a 405 is built. */
export function notAllowed(method: string, path: string, allow: string): ApiError {
  return new ApiError('method_not_allowed', `${method} is not allowed on ${path}; use ${allow}.`, { Allow: allow });
}

/**
 * 503 with `Retry-After`: something the answer needs (a store, a queue) cannot be had right now,
 * and the client may retry shortly. The one way a 503 is built.
 */
export function serviceUnavailable(message: string, retryAfterSeconds = 1): ApiError {
  return new ApiError('service_unavailable', message, { 'Retry-After': String(retryAfterSeconds) });
}

export function methodNotAllowed(allowed: readonly string[]): RequestHandler {
  const allow = allowed.join(', ');
  return (req, _res, next) => {
    next(notAllowed(req.method, req.path, allow));
  };
}
