import pino, { type Logger, type LevelWithSilent } from 'pino';

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

export type { Logger };
