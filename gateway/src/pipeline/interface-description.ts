import type { InterfaceDescription } from '../../../shared/src/openapi';
import { sendJsonText } from '../../../shared/src/json-response';
import type { Stage } from './exchange';

/** GET /v1/openapi.json: the document this deployment serves (see `interfaceDescriptionFor`). */
export function serveInterfaceDescription(document: InterfaceDescription): Stage {
  // Serialised once: the document never changes while the process runs.
  const body = JSON.stringify(document);
  return (x) => {
    sendJsonText(x.res, 200, body);
  };
}
