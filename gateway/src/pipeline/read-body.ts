import type { RequestHandler } from 'express';
import { MAX_BODY_BYTES } from '../../../shared/src/json-body';
import { declaresBody } from '../../../shared/src/errors';
import { readWholeBody } from '../../../shared/src/request-body';
import { v1Locals } from './locals';

export interface ReadBodyOptions {
  /** The whole body must arrive within this long, or the answer is 408 request_timeout. */
  timeoutMs: number;
  maxBytes?: number;
}

/**
 * Reads the request body whole (it is at most 16 KiB) before anything is sent upstream, so a client
 * trickling its body holds only its own connection, never one of the pets-service's: the upstream
 * request starts when the body is complete and is written in one go. The rules (413 at once on a
 * declared length over the limit, 413 as a chunked body passes it, 408 past the deadline, each
 * closing the connection) are the one body reader's (`shared/src/request-body.ts`).
 */
export function readBody({ timeoutMs, maxBytes = MAX_BODY_BYTES }: ReadBodyOptions): RequestHandler {
  return (req, res, next) => {
    if (!declaresBody(req)) return next();
    // Key and limits have passed: a client waiting for 100 Continue is told to send now.
    readWholeBody(req, res, { maxBytes, timeoutMs }, (error, body) => {
      if (error) return next(error);
      v1Locals(res).body = body;
      next();
    });
  };
}
