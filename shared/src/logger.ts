import pino, { type Logger, type LevelWithSilent, type LoggerOptions } from 'pino';
import { tracing } from './tracing/runtime';

/** Headers that carry credentials never reach a log line, wherever a logged object holds them (one level down too). */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-admin-token', 'x-api-key'];
const REDACTED = [
  'authorization',
  ...CREDENTIAL_HEADERS.flatMap((name) => [`headers["${name}"]`, `req.headers["${name}"]`, `res.headers["${name}"]`, `*.headers["${name}"]`]),
];

/**
 * How log lines are written: `json`, one object per line, for collectors, files and pipes; `pretty`,
 * coloured human-readable lines (pino-pretty), for a person reading a terminal.
 */
export type LogFormat = 'json' | 'pretty';

/**
 * Pretty only for a person at a terminal outside production: a production process writes JSON even
 * on a terminal (what it writes may be collected), and output sent to a pipe or a file stays JSON.
 */
export function logFormatFor({ production, terminal }: { production: boolean; terminal: boolean }): LogFormat {
  return !production && terminal ? 'pretty' : 'json';
}

/** The format for this process's standard output (`main.ts` of each service). */
export function logFormatOfStdout(production: boolean): LogFormat {
  return logFormatFor({ production, terminal: process.stdout.isTTY === true });
}

/**
 * pino-pretty in this thread, writing synchronously: a development terminal needs no worker thread,
 * and a line is on screen before the process can exit. Loaded here, on first use, so that a process
 * writing JSON (production, every test's child) never pays for loading it.
 */
function prettyStream() {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when a terminal reads the logs
  const pretty = require('pino-pretty') as typeof import('pino-pretty');
  return pretty({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
}

/**
 * With tracing on, every line carries the active span's `trace_id`, `span_id` and `trace_flags`, so
 * a line written while a request is handled leads to its trace. Installed only then: off, pino
 * calls no mixin at all.
 */
function traceFields(): Pick<LoggerOptions, 'mixin'> {
  return tracing ? { mixin: tracing.logFields } : {};
}

export function createLogger(name: string, level: LevelWithSilent | string = 'info', format: LogFormat = 'json'): Logger {
  const options = { name, level, redact: { paths: REDACTED, censor: '[redacted]' }, ...traceFields() };
  return format === 'pretty' ? pino(options, prettyStream()) : pino(options);
}

export type { Logger };

/** How long an access-log line may wait in the buffer before it is written. */
const ACCESS_LOG_FLUSH_MS = 500;

/**
 * The access log's own logger: one line per request is the one log write every request makes, and a
 * synchronous write per line (pino's default) costs a system call per request. Lines are buffered
 * (written when 8 KiB have gathered, or every half second) and the buffer is written synchronously
 * when the process exits, so nothing is lost on a normal stop. Other log lines stay synchronous:
 * a warning or an error is written at once. On a development terminal (`pretty`) nothing is
 * buffered: a person is reading, and the cost does not matter there.
 */
export function createAccessLogger(name: string, level: LevelWithSilent | string = 'info', format: LogFormat = 'json'): Logger {
  if (format === 'pretty') return pino({ name, level, ...traceFields() }, prettyStream());
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
  return pino({ name, level, ...traceFields() }, destination);
}
