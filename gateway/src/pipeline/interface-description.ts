import type { RequestHandler } from 'express';
import { openApiDocument } from '../../../shared/src/openapi';

// Serialised once: the document never changes while the process runs.
const body = JSON.stringify(openApiDocument);

export const serveInterfaceDescription: RequestHandler = (_req, res) => {
  res.type('application/json').send(body);
};
