import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';

export const REQUEST_ID_HEADER = 'x-request-id';
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's id when it is safe to echo and log, otherwise a fresh one. */
export function requestIdOf(req: IncomingMessage): string {
  const offered = req.headers[REQUEST_ID_HEADER];
  return typeof offered === 'string' && ACCEPTABLE_ID.test(offered) ? offered : randomUUID();
}

/** Gives every request an id (`req.id`, read by the access log) and every response the header. */
export const requestId: RequestHandler = (req, res, next) => {
  const id = requestIdOf(req);
  req.id = id;
  req.headers[REQUEST_ID_HEADER] = id;
  res.setHeader('X-Request-Id', id);
  next();
};
