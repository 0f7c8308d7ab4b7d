import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError, sendError } from './errors';
import { headerCount } from './raw-headers';

/**
 * Request header fields one request may carry, on every port (RFC 6585 §5: 431 beyond). A hundred
 * is several times what any browser or client library sends. Without a limit of its own, Node keeps
 * the first 1,000 (2,000 array entries) and silently drops the rest (Node 20 and 22; Node 24 refuses
 * them), so a header placed after the thousandth escaped every check: a second Host or Authorization,
 * or (on the next hop) the gateway's own internal token, pushed out by the client's filler.
 */
export const MAX_REQUEST_HEADERS = 100;

/**
 * The pets-service's limit. It is reached through the gateway, which forwards up to
 * MAX_REQUEST_HEADERS of a client's headers with a few of its own (Host, Authorization,
 * X-Forwarded-For, -Proto and -Prefix, X-Request-Id, Content-Length, Connection): room for them, so
 * a request the gateway accepted is never refused on the next hop, and none of them is ever cut.
 */
export const UPSTREAM_MAX_REQUEST_HEADERS = MAX_REQUEST_HEADERS + 10;

/** What the HTTP parser is told to keep: one more than the limit, so that "too many" is always seen. */
export function parserHeaderLimit(maxRequestHeaders: number): number {
  return maxRequestHeaders + 1;
}

/**
 * Requests Node refuses before any handler sees them: a request the HTTP parser cannot read
 * (headers over 16 KiB or too many of them, a malformed request line or header, an unknown method), one that did not
 * arrive in time (`headersTimeout`, `requestTimeout`), an `Expect` other than 100-continue, a
 * CONNECT. Node would answer them with an empty 400, 408, 417 or 431, or drop the connection
 * without a word; these answer in the Error shape with an X-Request-Id like every other answer.
 * After a parse error or a timeout the connection is closed, since the rest of the stream cannot
 * be trusted. Rate-limit headers cannot be computed this early.
 */
export function answerRefusedRequests(server: Server, maxRequestHeaders = MAX_REQUEST_HEADERS): void {
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('Connection', 'close'); // the body the client holds back would otherwise come next
    answerEarly(res, new ApiError('expectation_failed', `Expect: ${req.headers.expect ?? ''} is not supported; only Expect: 100-continue is.`));
  });
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    writeAndClose(socket, new ApiError('not_implemented', 'CONNECT is not supported: this server is not a forward proxy.'));
  });
  answerUnparseableRequests(server, maxRequestHeaders);
}

/** An answer given before the application runs: the Error shape and a fresh request id. */
export function answerEarly(res: ServerResponse, refusal: ApiError): void {
  res.setHeader('X-Request-Id', randomUUID());
  sendError(res, refusal);
}

function answerUnparseableRequests(server: Server, maxRequestHeaders: number): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    // A response already under way on this connection (the application answered before the
    // request finished arriving): another head would corrupt it, so the connection just ends.
    if ((socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    writeAndClose(socket, refusalFor(error, maxRequestHeaders));
  });
}

/**
 * What is wrong with a request's head that Node lets through (or answers without the Error shape),
 * checked before the application runs:
 * - More than `maxRequestHeaders` header fields: counted first, before anything reads one (the
 *   parser was told to keep one more than the limit, see `parserHeaderLimit`).
 * - HTTP/1.1 requires exactly one Host header (RFC 9112 §3.2). Node's own check would answer a
 *   missing one with an empty 400 (so the servers turn it off, `requireHostHeader: false`) and
 *   lets a repeated one through.
 * - A transfer coding other than chunked (e.g. `gzip, chunked`): Node decodes the chunks and hands
 *   on the still-compressed bytes as if they were the body. RFC 9112 §6.1: 501.
 */
export function requestHeadRefusal(req: IncomingMessage, maxRequestHeaders = MAX_REQUEST_HEADERS): ApiError | undefined {
  if (req.rawHeaders.length / 2 > maxRequestHeaders) return tooManyHeaders(maxRequestHeaders);
  const transferEncoding = req.headers['transfer-encoding'];
  if (transferEncoding !== undefined && transferEncoding.trim().toLowerCase() !== 'chunked') {
    return new ApiError('not_implemented', `Transfer-Encoding: ${transferEncoding} is not supported; send the body with Content-Length or Transfer-Encoding: chunked.`);
  }
  return hostHeaderRefusal(req);
}

function hostHeaderRefusal(req: IncomingMessage): ApiError | undefined {
  if (req.httpVersionMajor !== 1 || req.httpVersionMinor < 1) return undefined;
  const hosts = headerCount(req.rawHeaders, 'host');
  if (hosts === 1) return undefined;
  return new ApiError('invalid_parameter', hosts === 0 ? 'An HTTP/1.1 request must carry a Host header.' : 'The request carries more than one Host header.');
}

function tooManyHeaders(maxRequestHeaders: number): ApiError {
  return new ApiError('request_header_fields_too_large', `The request carries more than ${maxRequestHeaders} header fields, the most this server accepts.`);
}

function refusalFor(error: NodeJS.ErrnoException, maxRequestHeaders: number): ApiError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      // Past 16 KiB of headers, or (Node 24) past the parser's header count.
      return new ApiError('request_header_fields_too_large', `The request headers are larger than this server accepts: at most ${maxRequestHeaders} header fields and 16 KiB in all.`);
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('request_timeout', 'The request did not arrive in full in time; the connection is closed.');
    case 'HPE_INVALID_METHOD':
      return new ApiError('not_implemented', 'The request method is not one this server knows.');
    default:
      return new ApiError('invalid_parameter', 'The request could not be parsed as HTTP/1.1.');
  }
}

function writeAndClose(socket: Duplex, refusal: ApiError): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(refusal.toBody());
  socket.end(
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? ''}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${randomUUID()}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
