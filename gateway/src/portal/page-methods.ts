import type { RequestHandler } from 'express';
import { PortalRefusal } from './portal-refusal';

/** The answer of a portal page to a method it does not take: 405 with `Allow`, as a page. */
export function pageMethodNotAllowed(allowed: readonly string[]): RequestHandler {
  return (req, res) => {
    res.setHeader('Allow', allowed.join(', '));
    throw new PortalRefusal(405, `${req.method} is not allowed here; use ${allowed.join(' or ')}.`);
  };
}
