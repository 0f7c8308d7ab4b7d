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
/** Characters of access lines gathered before they are written. */
const ACCESS_LOG_BATCH = 8 * 1024;

/**
 * Lines gathered in an array and handed to `destination` joined, once `minLength` characters have
 * gathered (or on `flush`): one write of many lines.
 *
 * Why not sonic-boom's own buffer (`minLength`): it measures its whole pending text in bytes on
 * every write (`Buffer.byteLength` of the concatenation), which flattens it: at 8 KiB, a 4 KB copy
 * and 3.7 KB of garbage for each line of about 300 bytes (issue 29, docs/performance.md).
 */
export class LineBatch {
  private lines: string[] = [];
  private length = 0;

  constructor(
    private readonly destination: { write(text: string): unknown },
    private readonly minLength: number,
  ) {}

  write(line: string): boolean {
    this.lines.push(line);
    this.length += line.length;
    if (this.length >= this.minLength) this.flush();
    return true;
  }

  /** Hands every line gathered to the destination, in one write. */
  flush(): void {
    if (this.length === 0) return;
    const text = this.lines.length === 1 ? this.lines[0]! : this.lines.join('');
    this.lines = [];
    this.length = 0;
    this.destination.write(text);
  }
}

/**
 * The access log's own logger: one line per request is the one log write every request makes, and a
 * synchronous write per line (pino's default) costs a system call per request. Lines are gathered
 * (`LineBatch`: written when 8 KiB have gathered, or every half second) and what is left is written
 * synchronously when the process exits, so nothing is lost on a normal stop. Other log lines stay
 * synchronous: a warning or an error is written at once. On a development terminal (`pretty`)
 * nothing is buffered: a person is reading, and the cost does not matter there.
 */
export function createAccessLogger(name: string, level: LevelWithSilent | string = 'info', format: LogFormat = 'json'): Logger {
  if (format === 'pretty') return pino({ name, level, ...traceFields() }, prettyStream());
  // No minLength of its own: each batch is written as it comes (or after the write under way).
  const destination = pino.destination({ dest: 1, sync: false });
  const batch = new LineBatch(destination, ACCESS_LOG_BATCH);
  setInterval(() => {
    try {
      batch.flush();
    } catch {
      // stdout closed: the exit writes what is left, if it can
    }
  }, ACCESS_LOG_FLUSH_MS).unref();
  process.once('exit', () => {
    try {
      batch.flush();
      destination.flushSync();
    } catch {
      // stdout already closed: nothing left to write to
    }
  });
  return pino({ name, level, ...traceFields() }, batch);
}
