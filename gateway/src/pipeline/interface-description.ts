import { openApiDocument } from '../../../shared/src/openapi';
import { sendJsonText } from '../../../shared/src/json-response';
import type { Stage } from './exchange';

// Serialised once: the document never changes while the process runs.
const body = JSON.stringify(openApiDocument);

export const serveInterfaceDescription: Stage = (x) => {
  sendJsonText(x.res, 200, body);
};
