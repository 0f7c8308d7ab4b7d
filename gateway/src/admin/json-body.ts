import express, { type RequestHandler } from 'express';
import { ApiError } from '../../../shared/src/errors';

export const MAX_ADMIN_BODY = '16kb';

/**
 * The same rules as the public API: a body must be declared `application/json` (parameters
 * such as `charset=utf-8` are fine; body-parser refuses other charsets with 415), is at most
 * 16 KiB (413) and must parse (400 malformed_json); the shared error handler maps the last two.
 */
const requireJsonContentType: RequestHandler = (req, _res, next) => {
  const header = req.headers['content-type'];
  if (header === undefined || header.trim() === '') {
    throw new ApiError('unsupported_media_type', 'Content-Type is missing; send application/json.');
  }
  const type = header.split(';', 1)[0]!.trim().toLowerCase();
  if (type !== 'application/json') throw new ApiError('unsupported_media_type', 'Content-Type must be application/json.');
  next();
};

const parseJson = express.json({ limit: MAX_ADMIN_BODY, type: () => true });

export const jsonBody: RequestHandler = (req, res, next) => {
  requireJsonContentType(req, res, (error?: unknown) => (error ? next(error) : parseJson(req, res, next)));
};
