import { ApiError, serviceUnavailable } from '../../../shared/src/errors';
import { StoreUnavailableError } from '../store-errors';
import { HasherBusyError } from './passwords';
import { PortalRefusal } from './portal-refusal';

/** What the portal can tell a person (or its page's script) about an error, and in which words. */

export interface Refusal {
  status: number;
  message: string;
  retryAfterSeconds?: number;
}

/** What a person (or the page's script) can be told about an error; undefined for a bug. */
export function asRefusal(error: unknown): Refusal | undefined {
  if (error instanceof PortalRefusal) return error;
  if (error instanceof ApiError) return { status: error.status, message: error.message, retryAfterSeconds: numberOr(error.headers['Retry-After']) };
  if (error instanceof StoreUnavailableError) return asRefusal(serviceUnavailable('The portal cannot reach its store right now; try again in a moment.'));
  if (error instanceof HasherBusyError) return asRefusal(serviceUnavailable('The portal is very busy right now; try again in a few seconds.', 5));
  if (error instanceof URIError) return { status: 400, message: 'The address holds invalid percent-encoding.' };
  const type = typeof error === 'object' && error !== null && 'type' in error ? (error as { type: unknown }).type : undefined;
  switch (type) {
    case 'entity.too.large':
    case 'parameters.too.many':
      return { status: 413, message: 'The form sent is larger than any portal form.' };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return { status: 415, message: 'The form must be sent as plain UTF-8, uncompressed.' };
    case 'request.aborted':
    case 'stream.not.readable':
      return { status: 400, message: 'The form could not be read.' };
    default:
      return undefined;
  }
}

export function asApiError(refusal: Refusal): ApiError {
  const retry: Record<string, string> = refusal.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(refusal.retryAfterSeconds) };
  if (refusal.status === 429) return new ApiError('rate_limited', refusal.message, retry);
  if (refusal.status === 503) return serviceUnavailable(refusal.message, refusal.retryAfterSeconds);
  if (refusal.status === 404) return new ApiError('not_found', refusal.message);
  return new ApiError('invalid_parameter', refusal.message);
}

function numberOr(value: string | undefined): number | undefined {
  return value === undefined ? undefined : Number(value);
}

export function titleFor(status: number): string {
  switch (status) {
    case 403:
      return 'Request refused';
    case 404:
      return 'Not found';
    case 405:
      return 'Not allowed';
    case 409:
      return 'Not possible';
    case 429:
      return 'Too many requests';
    case 503:
      return 'Unavailable for a moment';
    default:
      return 'Please check your request';
  }
}
