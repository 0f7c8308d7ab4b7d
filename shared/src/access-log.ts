import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, RequestHandler } from 'express';
import pino, { type Logger } from 'pino';
import { redactSecrets } from './redact';

declare module 'node:http' {
  interface IncomingMessage {
    /** The request id (`requestId` stage). */
    id: string;
    /** A logger whose lines carry this request's id; made on first use, since most requests log nothing else. */
    log: Logger;
  }
}

/** Where a request keeps its `req.log` once made (an own field, set on first use only). */
const REQUEST_LOG = Symbol('requestLog');
type WithRequestLog = IncomingMessage & { [REQUEST_LOG]?: Logger };

/** Who called the pets-service, when its authentication stage knows (`res.locals.caller`). */
interface CallerLocals {
  caller?: { iss?: string; sub?: string };
}

export interface AccessLogOptions {
  /** A response was sent in full: its method, status and when its request arrived (`performance.now()`). */
  onResponse?: (method: string, status: number, started: number) => void;
}

/**
 * The access log: one line per request, written when the response is done, at a level that says
 * whether someone must look: `error` for the server failing (5xx), `info` for everything else,
 * refusals (4xx) and the deliberate 501 of unimplemented operations included. No stack is invented
 * for a status code: real exceptions are logged, with their stack, where they are caught.
 *
 * `logger` takes the access lines (buffered in production); `events` the lines stages write through
 * `req.log` (warnings, errors: written at once). `onResponse` is told of each response sent (not
 * of one abandoned) from the same listener, so that metrics need no listener and closure of their
 * own per request (issue 29).
 *
 * (pino-http did this with a child logger and a serializer pass per request, and logged a 501 as
 * "request errored" with a made-up Error.)
 */
export function accessLog(app: Express, logger: Logger, events: Logger = logger, { onResponse }: AccessLogOptions = {}): RequestHandler {
  // `req.log` is a getter on this app's request prototype, defined once: a per-request
  // `Object.defineProperty` cost an accessor and a closure on every request (issue 29).
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: WithRequestLog): Logger {
      return (this[REQUEST_LOG] ??= events.child({ reqId: this.id }));
    },
  });
  const direct = directStreamOf(logger);
  // A closure per request, not a field on the response: a symbol-keyed field added to every
  // response cost more than the closure it saved (more collector time per request in
  // bench/gc.ts, a new properties store per response; issue 29, docs/performance.md).
  // `on`, not `once`: a response emits 'close' once (Node's emitCloseNT checks `_closed`), and
  // `once` wraps each listener in a state object and a bound function (issue 29).
  return (req, res, next) => {
    const started = performance.now();
    res.on('close', () => {
      if (onResponse && res.writableFinished) onResponse(req.method, res.statusCode, started);
      const caller = (res.locals as CallerLocals).caller;
      writeAccessLine(logger, direct, res, req.id, req.originalUrl, started, caller ? { caller: caller.iss, subject: caller.sub } : undefined);
    });
    next();
  };
}

/**
 * The access line of one request, once its response is done (or abandoned). `started` is
 * `performance.now()` when the request arrived; `extra` adds fields (who called). The URL is logged
 * with API keys, bearer values and credential parameters redacted: a key sent in the query string
 * is refused, but it was still sent, and a log is no place for it. `direct`: the logger's stream,
 * when the line may be written to it without pino (`directStreamOf`).
 */
function writeAccessLine(logger: Logger, direct: LineStream | undefined, res: ServerResponse, reqId: string, url: string, started: number, extra?: AccessLineCaller): void {
  const status = res.statusCode;
  const aborted = !res.writableFinished;
  const failed = !aborted && status >= 500 && status !== 501;
  const level = failed ? ERROR : INFO;
  if (logger.levelVal > level) return;
  const ms = Math.round((performance.now() - started) * 10) / 10;
  const msg = aborted ? 'request aborted before its response was complete' : failed ? 'request failed' : 'request completed';
  if (direct) {
    direct.write(accessLineJson(logger, level, reqId, res.req.method, redactSecrets(url), status, ms, res.req.socket.remoteAddress, extra, aborted, msg));
    return;
  }
  const line = { reqId, method: res.req.method, url: redactSecrets(url), status, ms, remoteAddress: res.req.socket.remoteAddress, ...extra, ...(aborted ? { aborted } : {}) };
  if (failed) logger.error(line, msg);
  else logger.info(line, msg);
}

/** Who called, on the access line (the pets-service's callers). */
interface AccessLineCaller {
  caller: string | undefined;
  subject: string | undefined;
}

const INFO = 30;
const ERROR = 50;

const symbols = pino.symbols as unknown as Record<string, symbol>;
/** pino's internals a direct line reads, through the symbols pino exports for them. */
const PINO = {
  levelPrefixes: symbols.lsCacheSym!,
  time: symbols.timeSym!,
  bindings: symbols.chindingsSym!,
  end: symbols.endSym!,
  stream: symbols.streamSym!,
  mixin: symbols.mixinSym!,
  hooks: symbols.hooksSym!,
  formatters: symbols.formattersSym!,
  stringifiers: symbols.stringifiersSym!,
  messageKey: symbols.messageKeySym!,
  nestedKey: symbols.nestedKeySym!,
  msgPrefix: symbols.msgPrefixSym!,
  needsMetadata: symbols.needsMetadataGsym!,
};

interface LineStream {
  write(line: string): unknown;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- pino's internals are untyped */
const internalsOf = (logger: Logger) => logger as unknown as Record<symbol, any>;

/**
 * The logger's stream when an access line may be written to it directly, byte for byte as pino
 * would write it (`accessLineJson`); undefined when the logger transforms what it logs (a mixin,
 * as tracing installs; hooks, a log formatter, redaction, a nested key, a message prefix, another
 * message key; a stream that wants each line's metadata, as pretty and multistream do), and then
 * pino writes the line itself.
 *
 * Why: the access line is the one log write every request makes, and pino's general path (its
 * arguments gathered, the message formatted, the object's keys walked, each checked for a
 * serializer) cost the access log about a sixth of its time on one request (4.8 against 4.1 µs)
 * and 0.9 KB of garbage per request under load (issue 29, docs/performance.md).
 */
function directStreamOf(logger: Logger): LineStream | undefined {
  const p = internalsOf(logger);
  const stream = p[PINO.stream];
  const plain =
    !p[PINO.mixin] &&
    !p[PINO.hooks]?.streamWrite &&
    !p[PINO.hooks]?.logMethod &&
    !p[PINO.formatters]?.log &&
    Reflect.ownKeys(p[PINO.stringifiers] ?? {}).length === 0 &&
    p[PINO.messageKey] === 'msg' &&
    !p[PINO.nestedKey] &&
    !p[PINO.msgPrefix] &&
    typeof stream?.write === 'function' &&
    stream[PINO.needsMetadata] !== true;
  return plain ? stream : undefined;
}

/** The line pino writes for `logger[level](fields, msg)`, fields in the same order; an undefined field is left out, as pino leaves it. */
export function accessLineJson(
  logger: Logger,
  level: number,
  reqId: string,
  method: string | undefined,
  url: string,
  status: number,
  ms: number,
  remoteAddress: string | undefined,
  extra: AccessLineCaller | undefined,
  aborted: boolean,
  msg: string,
): string {
  const p = internalsOf(logger);
  let line = `${p[PINO.levelPrefixes][level]}${p[PINO.time]()}${p[PINO.bindings]},"reqId":${jsonString(reqId)}`;
  if (method !== undefined) line += `,"method":${jsonString(method)}`;
  line += `,"url":${jsonString(url)},"status":${status},"ms":${Number.isFinite(ms) ? ms : null}`;
  if (remoteAddress !== undefined) line += `,"remoteAddress":${jsonString(remoteAddress)}`;
  if (extra?.caller !== undefined) line += `,"caller":${jsonString(extra.caller)}`;
  if (extra?.subject !== undefined) line += `,"subject":${jsonString(extra.subject)}`;
  if (aborted) line += ',"aborted":true';
  return `${line},"msg":${jsonString(msg)}${p[PINO.end]}`;
}

/**
 * Longer strings (a URL with a long query) go to `JSON.stringify` unscanned, so one with a character
 * to escape near its end is not read twice; ids, addresses and ordinary paths are shorter.
 */
const SCANNED_UP_TO = 128;

/**
 * `JSON.stringify(text)`: the text quoted as it is when it holds only printable ASCII other than
 * `"` and `\` (a request id, a method, an address, a plain URL: nearly every line), which JSON
 * writes unchanged. A JavaScript loop over a short string costs less than the call into V8's
 * serializer (issue 29: a served request's line, 566 ns with `JSON.stringify`, 393 ns with this;
 * bench/micro/access-line.ts).
 */
export function jsonString(text: string): string {
  if (text.length > SCANNED_UP_TO) return JSON.stringify(text);
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return JSON.stringify(text);
  }
  return `"${text}"`;
}
/* eslint-enable @typescript-eslint/no-explicit-any */
