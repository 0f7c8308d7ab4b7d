import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import type { Stream } from 'node:stream';
import type { NextFunction, Request, Response } from 'express';
import type httpProxy from 'http-proxy';
import { createProxyMiddleware, type Plugin } from 'http-proxy-middleware';
import { ApiError } from '../../../shared/src/errors';
import { downstreamResponseHeaders } from './hop-by-hop';
import type { FailureKind, Replica, ReplicaSet } from './replicas';

export interface PetsProxyOptions {
  replicas: ReplicaSet;
  /** How long the replicas have, all tries together, to start answering (and, once one has, to keep sending). */
  timeoutMs: number;
  /**
   * How long one try of a GET or HEAD may wait for an answer's head while another replica is left
   * to try it on (0: no limit but `timeoutMs`). A frozen replica accepts connections and never
   * answers: without this every read sent its way waits the whole `timeoutMs` and gets a 504.
   */
  tryTimeoutMs?: number;
  /** Every attempt's outcome, per replica (metrics). */
  onAttempt?: (replica: Replica, outcome: 'ok' | FailureKind) => void;
}

/**
 * Sends a request to the pets-service: `req` as the earlier middleware left it (`req.url` the
 * path rebuilt from the route with the query, `req.headers` the end-to-end headers with the
 * gateway's own), `body` the bytes readBody read (undefined: none).
 */
export type PetsProxy = (req: Request, res: Response, next: NextFunction, body: Buffer | undefined) => void;

/** Failures of the connection itself: the request never reached the replica's application. */
const CONNECT_ERRORS = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND', 'EADDRNOTAVAIL']);
const TIMED_OUT = 'UPSTREAM_TIMEOUT';
const TRY_TIMED_OUT = 'UPSTREAM_TRY_TIMEOUT';

/**
 * One proxied request's way to the pets-service: the replicas tried, the attempt under way.
 * It is also the attempt's http-proxy `buffer`: http-proxy only calls `buffer.pipe(upstream)`,
 * right after it made the upstream request, so this writes the bytes already read in one `end`
 * (the request starts only when the body is whole), and learns of the upstream request at once
 * (for the timeout, and to tell whether a byte of it went out before a failure).
 */
class Hop {
  replica: Replica | undefined = undefined;
  readonly tried = new Set<Replica>();
  upstream: ClientRequest | undefined = undefined;
  /** The connection's bytes written when it was given to this attempt (-1: no connection yet). */
  bytesBefore = -1;
  timer: NodeJS.Timeout | undefined = undefined;
  /** When every try together runs out of time (the first try's start + timeoutMs). */
  readonly deadline: number;
  /** Whether a try was already cut short (at `tryTimeoutMs`) to go to another replica: once only. */
  shortTried = false;
  /** When the try under way probes a replica back from a back-off: the end of its probe window (else 0). */
  probeUntil = 0;

  constructor(
    readonly req: Request,
    readonly res: Response,
    readonly next: NextFunction,
    readonly body: Buffer | undefined,
    readonly timeoutMs: number,
    /** 0 unless this request may go to another replica after a try timed out (see `PetsProxyOptions`). */
    private readonly tryTimeoutMs: number,
    readonly replicas: ReplicaSet,
  ) {
    this.deadline = Date.now() + timeoutMs;
  }

  /** The time left for tries, ms (0: none, the request is answered 504 or 502 without another try). */
  timeLeft(): number {
    return Math.max(0, this.deadline - Date.now());
  }

  pipe(upstream: ClientRequest): ClientRequest {
    this.upstream = upstream;
    this.bytesBefore = -1;
    const left = this.timeLeft();
    // One short try at most, and only while another replica is there to take the request: a second
    // replica gets the rest of the time, so a slow but working service (a sick database answered
    // 503 in a few seconds) is still heard from, and a slow answer is not given up for nothing.
    const shortTry = !this.shortTried && this.tryTimeoutMs > 0 && this.tryTimeoutMs < left && this.replicas.anotherAvailable(this.tried);
    this.timer = shortTry ? setTimeout(timeOut, this.tryTimeoutMs, this, TRY_TIMED_OUT) : setTimeout(timeOut, left, this, TIMED_OUT);
    if (this.body) upstream.end(this.body);
    else upstream.end();
    return upstream;
  }

  /** Whether the failed attempt can have reached the replica's application. */
  mayHaveBeenSent(kind: FailureKind): boolean {
    if (kind === 'connect' || this.bytesBefore < 0) return false;
    return this.upstream?.socket?.bytesWritten !== this.bytesBefore;
  }
}

function timeOut(hop: Hop, code: typeof TIMED_OUT | typeof TRY_TIMED_OUT): void {
  hop.upstream?.destroy(Object.assign(new Error(code === TIMED_OUT ? `upstream did not answer within ${hop.timeoutMs} ms` : 'upstream did not answer this try in time'), { code }));
}

function hopOf(res: ServerResponse): Hop {
  return (res as Response).locals.hop as Hop;
}

/** The client went away: free the upstream connection instead of waiting for an answer nobody reads. */
function onClientClose(this: Response): void {
  if (this.writableFinished) return;
  const hop = hopOf(this);
  clearTimeout(hop.timer);
  // Its outcome will never be known: a replica it was probing may take other requests again.
  if (hop.replica && !this.headersSent) hop.replicas.abandoned(hop.replica, hop.probeUntil);
  hop.upstream?.destroy();
}

/** An answer that stops sending for longer than the timeout is cut (then so is the client's). */
function cutSilentAnswer(this: IncomingMessage): void {
  this.destroy();
}

/**
 * The pets-service behind http-proxy-middleware (`createProxyMiddleware`, ADR 0023), with HPM's
 * own plugins ejected and one plugin of ours that keeps every rule of the hop:
 *
 * - HPM's `router` picks the replica: round robin over the healthy ones (`ReplicaSet`), each with
 *   its own keep-alive agent (set per attempt by a pass of ours before http-proxy's `stream`);
 * - the body was read before (readBody) and goes in one write (`buffer`, see `Hop`);
 * - `selfHandleResponse`: the answer's head is written here, with only its end-to-end headers,
 *   so http-proxy's outgoing passes (which rewrite `Connection` and copy every header) never run,
 *   and a draining gateway's `Connection: close` stays;
 * - a replica that refuses the connection, or drops it before a byte of the request went out, is
 *   left out (back-off) and the request goes to the next replica: safe for POST too, since the
 *   first never saw it. GET and HEAD are also retried after a reset once sent (safe to repeat),
 *   and, once, after a try that did not answer within `tryTimeoutMs` (a frozen replica);
 * - no answer within `timeoutMs`, all tries together: 504; unreachable everywhere: 502; an answer that breaks off:
 *   the client's connection is cut, so it cannot take a partial body for a whole one.
 */
export function createPetsProxy({ replicas, timeoutMs, tryTimeoutMs = 0, onAttempt }: PetsProxyOptions): PetsProxy {
  const hopPlugin: Plugin<Request, Response> = (proxyServer) => {
    // http-proxy's per-request options are a copy made for this call: the replica's agent and the body go there.
    (proxyServer as unknown as WithPasses).before('web', 'stream', (_req, res, options) => {
      const hop = hopOf(res);
      options.agent = hop.replica!.agent;
      options.buffer = hop as unknown as Stream;
    });
    proxyServer.on('proxyReq', (upstream, _req, res) => {
      hopOf(res).bytesBefore = upstream.socket?.bytesWritten ?? -1;
    });
    proxyServer.on('proxyRes', (answer, _req, res) => {
      const hop = hopOf(res);
      clearTimeout(hop.timer);
      replicas.succeeded(hop.replica!);
      onAttempt?.(hop.replica!, 'ok');
      if (res.destroyed) {
        answer.resume();
        return;
      }
      res.writeHead(answer.statusCode ?? 502, downstreamResponseHeaders(answer.headers));
      // Once the head is out, a slow or broken upstream can only be answered by cutting the client.
      answer.setTimeout(timeoutMs, cutSilentAnswer);
      // `on`, not `once`: a stream emits 'close' once, and `once` allocates a wrapper per request.
      answer.on('close', () => {
        if (!answer.complete) res.destroy();
      });
      answer.pipe(res);
    });
    proxyServer.on('error', (error: NodeJS.ErrnoException, req, res) => {
      const hop = hopOf(res as Response);
      clearTimeout(hop.timer);
      const replica = hop.replica!;
      if (res.destroyed || (res as Response).headersSent) {
        res.destroy();
        return;
      }
      const kind = failureKind(error);
      replicas.failed(replica);
      onAttempt?.(replica, kind);
      const repeatable = isRepeatable(req.method);
      if (error.code === TRY_TIMED_OUT) hop.shortTried = true;
      if (kind === 'timeout' ? error.code === TRY_TIMED_OUT && attempt(hop) : (!hop.mayHaveBeenSent(kind) || repeatable) && attempt(hop)) return;
      req.log.warn({ err: error, upstream: replica.url }, kind === 'timeout' ? 'upstream timed out' : 'upstream unreachable');
      hop.next(
        kind === 'timeout'
          ? new ApiError('gateway_timeout', `The pets-service did not answer within ${Math.round(timeoutMs / 100) / 10} s.`)
          : new ApiError('bad_gateway', 'The pets-service could not be reached.'),
      );
    });
  };

  const proxy = createProxyMiddleware<Request, Response>({
    // Required by HPM; every request's target is the replica `router` gives.
    target: replicas.replicas[0]!.url,
    router: (req) => hopOf(req.res!).replica!.target,
    // Host: the replica's own host and port.
    changeOrigin: true,
    selfHandleResponse: true,
    // Its defaults answer errors with a bare text 500-family page and log through console: ours do both.
    ejectPlugins: true,
    plugins: [hopPlugin],
  });

  /** The next untried replica, or false when every one has been tried. */
  const attempt = (hop: Hop): boolean => {
    if (hop.tried.size > 0 && hop.timeLeft() === 0) return false;
    // A replica back from a back-off is probed by a request that is safe to send again.
    const taken = replicas.take(hop.tried, isRepeatable(hop.req.method));
    if (!taken) return false;
    const { replica } = taken;
    hop.probeUntil = taken.probeUntil;
    hop.tried.add(replica);
    hop.replica = replica;
    hop.upstream = undefined;
    void proxy(hop.req, hop.res, hop.next);
    return true;
  };

  // With one replica there is never another to go to: no short try, decided once here.
  const readTryTimeoutMs = replicas.replicas.length > 1 ? tryTimeoutMs : 0;
  return (req, res, next, body) => {
    const hop = new Hop(req, res, next, body, timeoutMs, isRepeatable(req.method) ? readTryTimeoutMs : 0, replicas);
    res.locals.hop = hop;
    res.on('close', onClientClose);
    if (!attempt(hop)) next(new ApiError('bad_gateway', 'The pets-service could not be reached.'));
  };
}

/** http-proxy's way to add a pass to its pipeline (not in its type definitions). */
interface WithPasses {
  before(type: 'web', passName: 'stream', pass: (req: IncomingMessage, res: ServerResponse, options: httpProxy.ServerOptions) => void): void;
}

/** Safe to send again after a try that may have reached a replica. */
function isRepeatable(method: string): boolean {
  return method === 'GET' || method === 'HEAD';
}

function failureKind(error: NodeJS.ErrnoException): FailureKind {
  if (error.code === TIMED_OUT || error.code === TRY_TIMED_OUT) return 'timeout';
  if (error.code !== undefined && CONNECT_ERRORS.has(error.code)) return 'connect';
  return 'reset';
}
