import type { Response } from 'express';
import type { Principal } from '../accounts/types';
import type { ApiError } from '../../../shared/src/errors';

/** What the stages tell each other about one request, kept on `res.locals`. */
export interface RequestContext {
  /** Set by authenticate when the request carries a valid key. */
  principal?: Principal;
  /** Set by authenticate when it does not: answered after the anonymous limit is applied. */
  authError?: ApiError;
}

export function contextOf(res: Response): RequestContext {
  return res.locals as RequestContext;
}
