import type { RequestHandler } from 'express';
import { notAllowed } from '../../../shared/src/errors';
import type { InterfaceDescription } from '../../../shared/src/openapi';
import { sendJsonText } from '../../../shared/src/json-response';

/** Where the description is served, under `/v1`: the one path `authorize` lets through without a key. */
export const INTERFACE_DESCRIPTION_PATH = '/openapi.json';

/**
 * `/v1/openapi.json`: the document this deployment serves (see `interfaceDescriptionFor`) to GET
 * and HEAD, 405 to any other method. Mounted on its path after rate limiting and authorization:
 * the description is public (no key needed), but counted like everything under `/v1`.
 */
export function serveInterfaceDescription(document: InterfaceDescription): RequestHandler {
  // Serialised once: the document never changes while the process runs.
  const body = JSON.stringify(document);
  return (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD') sendJsonText(res, 200, body);
    else next(notAllowed(req.method, `${req.baseUrl}${req.path}`, 'GET, HEAD'));
  };
}
