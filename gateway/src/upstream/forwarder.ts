import http, { type ClientRequest, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { Logger } from 'pino';
import { ApiError } from '../../../shared/src/errors';
import { downstreamResponseHeaders } from './hop-by-hop';
import type { FailureKind, Replica, ReplicaSet } from './replicas';

export interface UpstreamRequest {
  method: string;
  /** Path and query, relative to the replica's base URL. */
  path: string;
  /** End-to-end headers only; Host and Content-Length are set here, in this object (the forwarder owns it). */
  headers: OutgoingHttpHeaders;
  /** Read whole beforehand (the read-body stage), so it can be sent again to another replica. */
  body: Buffer | undefined;
}

/** The client's side of a forwarded request: where the answer goes, and the request's logger. */
export interface Downstream {
  readonly res: ServerResponse;
  readonly log: Logger;
}

export interface ForwarderOptions {
  replicas: ReplicaSet;
  /** How long a replica has to start answering (and, once it has, to keep sending). */
  timeoutMs: number;
  /** Every attempt's outcome, per replica (metrics). */
  onAttempt?: (replica: Replica, outcome: 'ok' | FailureKind) => void;
}

/** Failures of the connection itself: the request never reached the replica's application. */
const CONNECT_ERRORS = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND', 'EADDRNOTAVAIL']);
const TIMED_OUT = 'UPSTREAM_TIMEOUT';

/**
 * Sends a request to the pets-service and streams the answer back, over `node:http` and a
 * keep-alive pool per replica (docs/adr/0013: why not http-proxy-middleware).
 *
 * - A replica that refuses the connection, or drops it before a byte of the request went out, is
 *   left out (back-off) and the request goes to the next replica: safe for POST too, since the
 *   first never saw it. GET and HEAD are also retried after a reset once sent (they are safe to repeat).
 * - No answer within `timeoutMs`: 504. Unreachable everywhere: 502. An answer that breaks off:
 *   the client's connection is cut, so it cannot take a partial body for a whole one.
 * - Only end-to-end headers cross, in both directions.
 */
export class Forwarder {
  constructor(private readonly options: ForwarderOptions) {}

  forward(downstream: Downstream, request: UpstreamRequest, fail: (error: ApiError) => void): void {
    this.attempt(downstream, request, fail, new Set());
  }

  private attempt(downstream: Downstream, request: UpstreamRequest, fail: (error: ApiError) => void, tried: Set<Replica>): void {
    const { replicas, timeoutMs, onAttempt } = this.options;
    const { res } = downstream;
    const replica = replicas.pick(tried);
    if (!replica) {
      fail(new ApiError('bad_gateway', 'The pets-service could not be reached.'));
      return;
    }
    tried.add(replica);

    // The request's own header object, completed in place (a retry sets the next replica's Host over it).
    const headers = request.headers;
    headers.host = hostHeader(replica);
    if (request.body) headers['content-length'] = request.body.length;
    const send = replica.protocol === 'https:' ? https.request : http.request;
    const upstream: ClientRequest = send({
      agent: replica.agent,
      protocol: replica.protocol,
      hostname: replica.hostname,
      port: replica.port,
      method: request.method,
      path: `${replica.basePath}${request.path}`,
      headers,
    });

    let bytesBefore = -1;
    upstream.once('socket', (socket) => {
      bytesBefore = socket.bytesWritten;
    });
    const timer = setTimeout(() => upstream.destroy(Object.assign(new Error(`upstream did not answer within ${timeoutMs} ms`), { code: TIMED_OUT })), timeoutMs);

    // The client gave up: free the upstream connection instead of waiting for an answer nobody reads.
    // ('close' also follows a complete response, which must leave the connection in the pool.)
    const onClientGone = () => {
      if (!res.writableFinished) upstream.destroy();
    };
    res.once('close', onClientGone);

    upstream.once('response', (answer) => {
      clearTimeout(timer);
      replicas.succeeded(replica);
      onAttempt?.(replica, 'ok');
      if (res.destroyed) {
        answer.resume();
        return;
      }
      res.writeHead(answer.statusCode ?? 502, downstreamResponseHeaders(answer.headers));
      // Once the head is out, a slow or broken upstream can only be answered by cutting the client.
      answer.setTimeout(timeoutMs, () => answer.destroy());
      answer.once('close', () => {
        res.off('close', onClientGone);
        if (!answer.complete) res.destroy();
      });
      answer.pipe(res);
    });

    upstream.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      res.off('close', onClientGone);
      if (res.destroyed || res.headersSent) {
        res.destroy();
        return;
      }
      const kind = failureKind(error);
      replicas.failed(replica);
      onAttempt?.(replica, kind);
      const neverSent = kind === 'connect' || bytesBefore < 0 || upstream.socket?.bytesWritten === bytesBefore;
      const repeatable = request.method === 'GET' || request.method === 'HEAD';
      if (kind !== 'timeout' && (neverSent || repeatable) && tried.size < replicas.replicas.length) {
        this.attempt(downstream, request, fail, tried);
        return;
      }
      downstream.log.warn({ err: error, upstream: replica.url }, kind === 'timeout' ? 'upstream timed out' : 'upstream unreachable');
      fail(
        kind === 'timeout'
          ? new ApiError('gateway_timeout', `The pets-service did not answer within ${Math.round(timeoutMs / 100) / 10} s.`)
          : new ApiError('bad_gateway', 'The pets-service could not be reached.'),
      );
    });

    upstream.end(request.body);
  }
}

function failureKind(error: NodeJS.ErrnoException): FailureKind {
  if (error.code === TIMED_OUT) return 'timeout';
  if (error.code !== undefined && CONNECT_ERRORS.has(error.code)) return 'connect';
  return 'reset';
}

function hostHeader(replica: Replica): string {
  const host = replica.hostname.includes(':') ? `[${replica.hostname}]` : replica.hostname;
  const defaultPort = replica.protocol === 'https:' ? 443 : 80;
  return replica.port === defaultPort ? host : `${host}:${replica.port}`;
}
