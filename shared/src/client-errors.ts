import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from './errors';

/**
 * Requests Node's HTTP parser refuses (headers over 16 KiB, a malformed request line or header)
 * never reach Express. Node would answer them with an empty 400 or 431; this answers in the Error
 * shape with an X-Request-Id like every other answer, then closes the connection, since the
 * rest of the stream cannot be trusted. Rate-limit headers cannot be computed this early.
 */
export function answerUnparseableRequests(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const refusal =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? new ApiError('invalid_parameter', 'The request headers are larger than the server accepts (16 KiB).')
        : new ApiError('invalid_parameter', 'The request could not be parsed as HTTP/1.1.');
    const body = JSON.stringify(refusal.toBody());
    socket.end(
      `HTTP/1.1 ${refusal.status} Bad Request\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${randomUUID()}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}
