import { GET_PET_DEPRECATION_HEADERS } from '../../../shared/src/pets';
import type { RequestHandler } from 'express';
import type { RouteMatch } from '../routes/route-table';
import { routeOf } from './locals';

const DEPRECATION_HEADERS = Object.entries(GET_PET_DEPRECATION_HEADERS);

/**
 * Every response on a deprecated operation's path carries its deprecation headers, the gateway's
 * own 401 and 429 included, so this middleware runs before authentication. The document says which
 * operations are deprecated; a method the path does not offer (405) is marked when all of its
 * operations are.
 */
export const markDeprecated: RequestHandler = (req, res, next) => {
  if (isDeprecated(routeOf(req, res))) {
    for (const [name, value] of DEPRECATION_HEADERS) res.setHeader(name, value);
  }
  next();
};

function isDeprecated(match: RouteMatch): boolean {
  if (match.kind === 'path' && match.operation) return match.operation.deprecated;
  const path = match.kind === 'path' || match.kind === 'bad-path' ? match.path : undefined;
  return path !== undefined && [...path.operations.values()].every((operation) => operation.deprecated);
}
