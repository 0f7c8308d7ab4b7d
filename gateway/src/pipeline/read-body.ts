import type { NextFunction, RequestHandler, Response } from 'express';
import { ApiError } from '../../../shared/src/errors';
import { continueIfExpected } from '../../../shared/src/http-server';
import { MAX_BODY_BYTES } from '../../../shared/src/json-body';
import { v1Locals } from './locals';

export interface ReadBodyOptions {
  /** The whole body must arrive within this long, or the answer is 408 request_timeout. */
  timeoutMs: number;
  maxBytes?: number;
}

const KIB = 1024;

/**
 * Reads the request body whole (it is at most 16 KiB) before anything is sent upstream, so a client
 * trickling its body holds only its own connection, never one of the pets-service's: the upstream
 * request starts when the body is complete and is written in one go.
 *
 * - declared larger than the limit: 413 at once, nothing read;
 * - a chunked body is counted as it arrives: 413 as soon as it passes the limit;
 * - not complete within `timeoutMs` from the start of reading: 408 request_timeout.
 * The refusals close the connection: the rest of the stream cannot be trusted to be a new request.
 */
export function readBody({ timeoutMs, maxBytes = MAX_BODY_BYTES }: ReadBodyOptions): RequestHandler {
  const tooLarge = () => new ApiError('payload_too_large', `The request body is larger than ${maxBytes / KIB} KiB.`);
  return (req, res, next) => {
    const declared = req.headers['content-length'];
    const chunked = req.headers['transfer-encoding'] !== undefined;
    if (!chunked && (declared === undefined || declared === '0')) return next();
    if (Number(declared) > maxBytes) return refuse(res, next, tooLarge());
    // Key and limits have passed: a client waiting for 100 Continue may now send its body.
    continueIfExpected(req, res);

    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const finish = (error?: ApiError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      if (error) return refuse(res, next, error);
      v1Locals(res).body = Buffer.concat(chunks, received);
      next();
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) return finish(tooLarge());
      chunks.push(chunk);
    };
    const onEnd = () => finish();
    // The client went away before the end: there is nobody to answer, and nothing is sent upstream.
    const onClose = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
    };
    const timer = setTimeout(
      () => finish(new ApiError('request_timeout', `The request body was not received in full within ${formatSeconds(timeoutMs)}; the connection is closed.`)),
      timeoutMs,
    );
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onClose);
  };
}

/** Answers the refusal and closes the connection once it is written; what the client still sends is discarded meanwhile. */
function refuse(res: Response, next: NextFunction, error: ApiError): void {
  res.setHeader('Connection', 'close');
  res.req.resume();
  next(error);
}

function formatSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
