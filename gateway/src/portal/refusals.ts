import type { Response } from 'express';
import { ApiError, ErrorAnswer, knownAnswer, serviceUnavailable } from '../../../shared/src/errors';
import { StoreUnavailableError } from '../store-errors';
import { HasherBusyError } from './passwords';

/**
 * What the portal can tell a person (or its page's script) about an error: an answer of the one
 * catalogue (`shared/src/errors.ts`), which the routes render as a page (or, on the JSON endpoint,
 * hand to the one error handler); undefined for a bug.
 */
export function refusalOf(error: unknown): ErrorAnswer | undefined {
  if (error instanceof StoreUnavailableError) return serviceUnavailable('The portal cannot reach its store right now; try again in a moment.');
  if (error instanceof HasherBusyError) return serviceUnavailable('The portal is very busy right now; try again in a few seconds.', 5);
  // The router's own wording speaks of a path; a person reads an address.
  if (error instanceof URIError) return new ApiError('invalid_parameter', 'The address holds invalid percent-encoding.');
  return knownAnswer(error);
}

/** The headers a refusal must carry on its page as well (Retry-After, Allow). */
export function setHeadersOf(res: Response, refusal: ErrorAnswer): void {
  for (const [name, value] of Object.entries(refusal.headers)) res.setHeader(name, value);
}

/** A refusal of what a person asked on the dashboard (a bad form, a key limit) is shown there; the rest on a page of its own. */
export function shownOnDashboard(error: unknown): error is ErrorAnswer {
  return error instanceof ErrorAnswer && error.status < 500;
}

/** The heading of the page that shows a refusal. */
export function titleFor(status: number): string {
  switch (status) {
    case 403:
      return 'Request refused';
    case 404:
      return 'Not found';
    case 405:
      return 'Not allowed';
    case 408:
      return 'Too slow';
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
