import type { RequestHandler } from 'express';
import { missingKey } from './authenticate';
import { v1Locals } from './locals';

/** Refuses, after rate limiting, a request that authenticate could not identify. */
export const requireKey: RequestHandler = (_req, res, next) => {
  const { principal, authError } = v1Locals(res);
  next(principal ? undefined : (authError ?? missingKey()));
};
