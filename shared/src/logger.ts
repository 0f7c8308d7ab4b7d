import pino, { type Logger, type LevelWithSilent } from 'pino';
import { pinoHttp, type HttpLogger } from 'pino-http';

/** Headers that carry credentials never reach a log line. */
const REDACTED = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-admin-token"]',
  'headers.authorization',
  'authorization',
  'res.headers["set-cookie"]',
];

export function createLogger(name: string, level: LevelWithSilent | string = 'info'): Logger {
  return pino({ name, level, redact: { paths: REDACTED, censor: '[redacted]' } });
}

/** Access log: one line per request, tagged with the request id set by `requestId`. */
export function httpLogger(logger: Logger): HttpLogger {
  return pinoHttp({
    logger,
    genReqId: (req) => req.id ?? '',
    // Refused requests (401, 429…) are ordinary traffic: a flood of them must not flood the warn level.
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    serializers: {
      req: (req: { id: unknown; method: string; url: string; remoteAddress?: string }) => ({
        id: req.id,
        method: req.method,
        url: req.url,
        remoteAddress: req.remoteAddress,
      }),
    },
  });
}

export type { Logger };
