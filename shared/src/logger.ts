import pino, { type Logger, type LevelWithSilent } from 'pino';

/** Headers that carry credentials never reach a log line, wherever a logged object holds them (one level down too). */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-admin-token', 'x-api-key'];
const REDACTED = [
  'authorization',
  ...CREDENTIAL_HEADERS.flatMap((name) => [`headers["${name}"]`, `req.headers["${name}"]`, `res.headers["${name}"]`, `*.headers["${name}"]`]),
];

export function createLogger(name: string, level: LevelWithSilent | string = 'info'): Logger {
  return pino({ name, level, redact: { paths: REDACTED, censor: '[redacted]' } });
}

export type { Logger };

/** How long an access-log line may wait in the buffer before it is written. */
const ACCESS_LOG_FLUSH_MS = 500;

/**
 * The access log's own logger: one line per request is the one log write every request makes, and a
 * synchronous write per line (pino's default) costs a system call per request. Lines are buffered
 * (written when 8 KiB have gathered, or every half second) and the buffer is written synchronously
 * when the process exits, so nothing is lost on a normal stop. Other log lines stay synchronous:
 * a warning or an error is written at once.
 */
export function createAccessLogger(name: string, level: LevelWithSilent | string = 'info'): Logger {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 8 * 1024 });
  const flush = () => {
    try {
      destination.flush();
    } catch {
      // nothing buffered yet, or stdout closed: the next tick or the exit writes what is left
    }
  };
  setInterval(flush, ACCESS_LOG_FLUSH_MS).unref();
  process.once('exit', () => {
    try {
      destination.flushSync();
    } catch {
      // stdout already closed: nothing left to write to
    }
  });
  return pino({ name, level }, destination);
}
