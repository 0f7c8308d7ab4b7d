import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { writeAccessLine } from '../../../shared/src/access-log';
import { ApiError, sendError } from '../../../shared/src/errors';
import { REQUEST_ID_HEADER, requestIdOf } from '../../../shared/src/request-id';
import { Exchange, type Stage, type TrustFunction } from './exchange';
import { runStages } from './stages';
import type { V1Target } from './target';

export interface V1HandlerOptions {
  /** The pipeline, in its fixed order. */
  stages: readonly Stage[];
  trust: TrustFunction;
  /** Warnings and errors of stages (`x.log`), written at once. */
  logger: Logger;
  /** The one line per request. */
  accessLogger: Logger;
  /** Every response sent (Prometheus). */
  observeResponse: (method: string, status: number, started: number) => void;
}

/**
 * Serves `/v1` from Node's request listener, without Express: the request id, one `close`
 * listener for the access line and the metrics, the stages in their fixed order, and errors
 * answered in the Error shape with a direct write. Express keeps the rest of the public port
 * (`/docs`, `/portal`, health), where its routing earns its cost; on `/v1` every request paid for
 * its app-level router and its request and response prototypes (docs/performance.md).
 */
export function createV1Handler({ stages, trust, logger, accessLogger, observeResponse }: V1HandlerOptions): (req: IncomingMessage, res: ServerResponse, target: V1Target) => void {
  const run = runStages(stages, answerError);
  return (req, res, target) => {
    const started = performance.now();
    const id = requestIdOf(req);
    // The pets-service logs the same id: it goes upstream with the client's other headers.
    req.headers[REQUEST_ID_HEADER] = id;
    res.setHeader('X-Request-Id', id);
    res.once('close', () => {
      if (res.writableFinished) observeResponse(req.method ?? '', res.statusCode, started);
      writeAccessLine(accessLogger, res, id, req.url ?? '', started);
    });
    run(new Exchange(req, res, target.path, target.search, id, trust, logger));
  };
}

/** The end of a pipeline that did not forward: a refusal in the Error shape, or a 500 for a fault (logged). */
function answerError(x: Exchange, error: unknown): void {
  const { res } = x;
  // Too late for an Error answer: cut the connection so the client cannot take a partial answer for a whole one.
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (error instanceof ApiError) {
    sendError(res, error);
    return;
  }
  x.log.error({ err: error }, 'unhandled error');
  sendError(res, new ApiError('internal_error', 'The server failed to handle the request.'));
}
