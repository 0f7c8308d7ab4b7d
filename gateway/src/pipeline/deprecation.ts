import type { RequestHandler } from 'express';
import { GET_PET_DEPRECATION_HEADERS } from '../../../shared/src/pets';

const GET_PET_PATH = /^\/pets\/[^/]+\/?$/;

/**
 * Every response on the deprecated getPet path carries its deprecation headers,
 * the gateway's own 401 and 429 included, so this stage runs before authentication.
 */
export const markDeprecated: RequestHandler = (req, res, next) => {
  if (GET_PET_PATH.test(req.path)) {
    for (const [name, value] of Object.entries(GET_PET_DEPRECATION_HEADERS)) res.setHeader(name, value);
  }
  next();
};
