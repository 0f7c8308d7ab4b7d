import type { RequestHandler } from 'express';
import { GET_PET_DEPRECATION_HEADERS } from '../../../shared/src/pets';

/** What the router's `/pets/:petId` matches (case-insensitive, optional trailing slash). */
const GET_PET_PATH = /^\/pets\/[^/]+\/?$/i;

/**
 * Mounted before authentication and routing so that every answer on the deprecated path,
 * 401, 400, 404 and 405 included, tells the client about the deprecation and the successor.
 * A plain path test, not a route: a route pattern would decode `petId` and could fail first.
 */
export const getPetDeprecationHeaders: RequestHandler = (req, res, next) => {
  if (GET_PET_PATH.test(req.path)) {
    for (const [name, value] of Object.entries(GET_PET_DEPRECATION_HEADERS)) res.setHeader(name, value);
  }
  next();
};
