import type { ServerResponse } from 'node:http';

/**
 * Writes a JSON answer in one go: what Express's `res.json` does for an API, without its generic
 * `send` (content negotiation of the charset, freshness checks, ETag, string-or-buffer handling),
 * which cost the pets-service a tenth of a list request. A HEAD request gets the headers only.
 */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  sendJsonText(res, status, JSON.stringify(value));
}

/** `sendJson` for a body already serialised (a document served as it is). */
export function sendJsonText(res: ServerResponse, status: number, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
