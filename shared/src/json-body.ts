import contentType from 'content-type';
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { ApiError, declaresBody } from './errors';
import { readParsedBody } from './request-body';

export const MAX_BODY_BYTES = 16 * 1024;
const UTF8_CHARSETS = new Set(['utf-8', 'utf8']);

/**
 * Refuses anything but `application/json` before a single byte of the body is read. The header is
 * read by `content-type` (RFC 7231 media types: case, quoting, parameters); parameters are allowed,
 * a charset other than UTF-8 is not, since JSON on the wire is UTF-8.
 */
export const requireJsonContentType: RequestHandler = (req, _res, next) => {
  const header = req.headers['content-type'];
  if (header === undefined || header.trim() === '') {
    throw new ApiError('unsupported_media_type', 'Content-Type is missing; send application/json.');
  }
  let mediaType: contentType.ParsedMediaType;
  try {
    mediaType = contentType.parse(header);
  } catch {
    throw new ApiError('unsupported_media_type', `Content-Type is not a media type ("${header.slice(0, 100)}"); send application/json.`);
  }
  if (mediaType.type !== 'application/json') {
    throw new ApiError('unsupported_media_type', 'Content-Type must be application/json.');
  }
  const charset = mediaType.parameters.charset;
  if (charset !== undefined && !UTF8_CHARSETS.has(charset.toLowerCase())) {
    throw new ApiError('unsupported_media_type', 'The request body must be UTF-8 encoded JSON.');
  }
  next();
};

/** Whether the body is sent as it is (no `Content-Encoding` other than identity): a compressed one is refused, never inflated. */
export function sentUncompressed(req: IncomingMessage): boolean {
  const encoding = req.headers['content-encoding'];
  return encoding === undefined || encoding.trim().toLowerCase() === 'identity';
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const LONE_SURROGATE = /\p{Cs}/u;

/** The JSON value of a body's bytes; throws the client-facing error otherwise. */
export function parseJsonBody(raw: unknown, expected = 'a JSON object'): unknown {
  const bytes = Buffer.isBuffer(raw) ? raw : Buffer.alloc(0);
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw new ApiError('malformed_json', 'The request body is not valid UTF-8.');
  }
  if (text.trim() === '') throw new ApiError('invalid_body', `A request body is required: ${expected}.`);
  /** Where the first lone surrogate was: a field name, or '' for the body itself. */
  let notUnicodeAt: string | undefined;
  let value: unknown;
  try {
    // JSON escapes can spell a lone surrogate ("\ud800"): not a Unicode character, and stored it would turn into U+FFFD.
    value = JSON.parse(text, (key, item: unknown) => {
      if (notUnicodeAt === undefined && (LONE_SURROGATE.test(key) || (typeof item === 'string' && LONE_SURROGATE.test(item)))) notUnicodeAt = key;
      return item;
    });
  } catch (error) {
    // The reviver runs once per value, recursively: a few thousand nested arrays (valid JSON, under
    // 16 KiB) overflow the stack before the end. No body of this interface nests beyond a few levels.
    if ((error as Error).name === 'RangeError') throw new ApiError('invalid_body', 'The request body nests arrays or objects too deeply.');
    throw new ApiError('malformed_json', 'The request body is not valid JSON.');
  }
  if (notUnicodeAt !== undefined) {
    // The reviver sees names, not paths: enough for this interface's flat bodies.
    const where = notUnicodeAt === '' || LONE_SURROGATE.test(notUnicodeAt) ? 'The request body' : notUnicodeAt;
    throw new ApiError('invalid_body', `${where} holds a string that is not valid Unicode (a lone surrogate).`);
  }
  return value;
}

export interface JsonBodyOptions {
  /** The whole body must arrive within this (`BODY_TIMEOUT_MS`), or the answer is 408 request_timeout. */
  timeoutMs: number;
  /** What the body should be, for the message of a missing one (default: "a JSON object"). */
  expected?: string;
}

/**
 * The body rules of both services in one middleware: `application/json` (415), sent uncompressed
 * (415), at most 16 KiB (413 at once on a declared length), within the body deadline (408), present
 * (400 invalid_body) and valid JSON (400 malformed_json); `req.body` is the value. Read by the one
 * body reader (`request-body.ts`): a refused body is never read to its end.
 */
export function jsonBody({ timeoutMs, expected }: JsonBodyOptions): RequestHandler {
  return (req, res, next) => {
    requireJsonContentType(req, res, (error?: unknown) => {
      if (error) return next(error);
      if (!sentUncompressed(req)) return next(new ApiError('unsupported_media_type', 'Content-Encoding is not supported: send the body uncompressed.'));
      readParsedBody(req, res, { maxBytes: MAX_BODY_BYTES, timeoutMs }, (raw) => parseJsonBody(raw, expected), next);
    });
  };
}

/**
 * `jsonBody` for a body that may be left out: a request that declares no body (no
 * `Transfer-Encoding`, and no `Content-Length` or `Content-Length: 0`) reads as `{}`, whatever its
 * content type; a request with a body meets every rule of `jsonBody`.
 */
export function optionalJsonBody(options: JsonBodyOptions): RequestHandler {
  const withBody = jsonBody(options);
  return (req, res, next) => {
    if (declaresBody(req)) return withBody(req, res, next);
    req.body = {};
    next();
  };
}
