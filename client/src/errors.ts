import type { ErrorBody, ErrorCode } from './types';

export interface AnimalStoreErrorFields {
  status: number;
  code: ErrorCode | (string & {});
  message: string;
  requestId?: string;
  retryAfter?: number;
}

/**
 * The API refused a request (an answer in the Error shape, or any other non-2xx answer), or the
 * client refused to send one the rate limit would refuse (`requestId` undefined; see `AnimalStoreClient`).
 * Network failures, timeouts and aborts are not refusals: they reject with the platform's own errors.
 */
export class AnimalStoreError extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** The Error body's `code` (`rate_limited`, `invalid_body`, …), or `unexpected_response` for an answer not in the Error shape. */
  readonly code: ErrorCode | (string & {});
  /** The answer's `X-Request-Id`: quote it when asking the API's operators about this request. */
  readonly requestId: string | undefined;
  /** Seconds to wait before trying again, when the answer said (`Retry-After`). */
  readonly retryAfter: number | undefined;

  constructor({ status, code, message, requestId, retryAfter }: AnimalStoreErrorFields) {
    super(message);
    this.name = 'AnimalStoreError';
    this.status = status;
    this.code = code;
    this.requestId = requestId;
    this.retryAfter = retryAfter;
  }

  /** The error an answer stands for; `body` is what openapi-fetch parsed (JSON when it was JSON, text otherwise). */
  static fromResponse(response: Response, body: unknown): AnimalStoreError {
    const fields = { status: response.status, requestId: response.headers.get('x-request-id') ?? undefined, retryAfter: retryAfterSeconds(response.headers) };
    if (isErrorBody(body)) return new AnimalStoreError({ ...fields, code: body.code, message: body.message });
    return new AnimalStoreError({ ...fields, code: 'unexpected_response', message: `The API answered ${response.status} ${response.statusText} without an Error body.` });
  }
}

function isErrorBody(body: unknown): body is Pick<ErrorBody, 'code' | 'message'> {
  return typeof body === 'object' && body !== null && typeof (body as ErrorBody).code === 'string' && typeof (body as ErrorBody).message === 'string';
}

/** `Retry-After` in seconds: delay-seconds, or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function retryAfterSeconds(headers: Headers, nowMs = Date.now()): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}
