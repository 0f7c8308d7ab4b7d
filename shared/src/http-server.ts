import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { appPrototypeClasses } from './app-prototypes';
import { IdleConnections, KEEP_ALIVE_MARGIN_MS } from './idle-connections';
import { InFlightResponses } from './in-flight';
import { stopTracing } from './tracing/runtime';
import { MAX_REQUEST_HEADERS, answerEarly, answerRefusedRequests, parserHeaderLimit, requestHeadRefusal } from './client-errors';
import { closeIfBodyUnread, declaresBody } from './errors';

/**
 * The HTTP servers of both services: deliberate timeouts, and a drain that lets a rolling deploy
 * stop a process without losing a request.
 *
 * Timeouts (each a defence against a client holding a connection for nothing):
 * - `headersTimeoutMs`: a request's headers must arrive within this (slowloris).
 * - `requestTimeoutMs`: the whole request within this. A backstop only: the gateway reads bodies
 *   itself under its own, shorter deadline (`BODY_TIMEOUT_MS`) and answers that in the Error shape;
 *   Node's own answer to this one is a bare 408.
 * - `keepAliveTimeoutMs`: an idle keep-alive connection is kept at least this long, and closed within
 *   two seconds more (`idle-connections.ts`: Node's own 1 s margin, then a sweep once a second).
 *   Every response that keeps its connection advertises exactly this value in `Keep-Alive:
 *   timeout=`, and upstream hints are never relayed, so what a client is told is what it gets.
 */
export interface ServerTimeouts {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

export interface Lifecycle {
  /** True from the first stop signal: readiness answers 503 and every response closes its connection. */
  readonly draining: boolean;
}

export interface DrainableServer {
  readonly server: Server;
  listen(port: number, host: string): Promise<void>;
  /**
   * Stops accepting connections, closes the idle ones at once, lets every request already
   * received finish with `Connection: close`, and resolves when the last connection is gone.
   */
  drain(): Promise<void>;
  /** Cuts every connection still open (the drain's last resort). */
  cut(): void;
}

export interface ServerLimits {
  /** Header fields one request may carry; more: 431 (default MAX_REQUEST_HEADERS). */
  maxRequestHeaders?: number;
  /**
   * The application, not Node, answers `Expect: 100-continue` (`continueIfExpected`), once it has
   * decided to read the body: a client told no (401, 429…) never sends it. Off: Node answers
   * 100 Continue as soon as the head arrives.
   */
  continueByApplication?: boolean;
}

/** Node's own test for a request that waits for `100 Continue` before it sends its body. */
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

/** Tells a client waiting for `100 Continue` to send its body (where the body is about to be read); nothing for any other request. */
export function continueIfExpected(req: IncomingMessage, res: ServerResponse): void {
  const expect = req.headers.expect;
  if (expect !== undefined && !res.headersSent && CONTINUE.test(expect)) res.writeContinue();
}

/** A server whose connections close as their responses end once `lifecycle.draining` is set. */
export function createDrainableServer(
  app: RequestListener,
  timeouts: ServerTimeouts,
  lifecycle: Lifecycle,
  { maxRequestHeaders = MAX_REQUEST_HEADERS, continueByApplication = false }: ServerLimits = {},
): DrainableServer {
  // Not a Set: one that churns per request keeps garbage alive on Node 24 (in-flight.ts).
  const inFlight = new InFlightResponses();
  // One listener for every response, not a closure and a `once` wrapper per request (issue 29).
  function forget(this: ServerResponse): void {
    inFlight.delete(this);
  }
  const handle: RequestListener = (req, res) => {
    // Node writes `Connection: keep-alive` and `Keep-Alive: timeout=` from this field, on a response
    // that keeps its connection only; it copies it from `server.keepAliveTimeout`, 0 below.
    (res as ServerResponse & { _keepAliveTimeout: number })._keepAliveTimeout = timeouts.keepAliveTimeoutMs;
    inFlight.add(res);
    res.on('close', forget);
    if (lifecycle.draining) closeAfter(res);
    const refusal = requestHeadRefusal(req, maxRequestHeaders);
    if (refusal) {
      res.setHeader('Connection', 'close'); // its body, if any, is not read
      answerEarly(res, refusal);
      return;
    }
    if (declaresBody(req)) closeWhenAnsweredUnread(req, res);
    app(req, res);
  };
  // Node checks the two request timeouts every `connectionsCheckingInterval` (30 s by default), so a
  // 10 s limit could fire 40 s late: a second keeps them close to what they say.
  // An Express app's requests and responses are made with its prototypes already (app-prototypes.ts).
  const server = createServer({ requireHostHeader: false, connectionsCheckingInterval: 1_000, ...appPrototypeClasses(app) }, handle);
  // With a listener, Node no longer writes 100 Continue by itself: the request goes to the app as any other.
  if (continueByApplication) server.on('checkContinue', handle);
  server.headersTimeout = timeouts.headersTimeoutMs;
  server.requestTimeout = timeouts.requestTimeoutMs;
  // Not Node's keep-alive timer: it arms a timer as each response finishes (issue 29, ADR 0042).
  // Idle connections are swept once a second instead; the limit is still advertised (`handle`).
  server.keepAliveTimeout = 0;
  if (timeouts.keepAliveTimeoutMs > 0) new IdleConnections(timeouts.keepAliveTimeoutMs + KEEP_ALIVE_MARGIN_MS).watch(server);
  // Node's own default keeps 1,000 headers and drops the rest without a word: keep one more than
  // the limit, so the count above sees every request that has too many.
  server.maxHeadersCount = parserHeaderLimit(maxRequestHeaders);
  answerRefusedRequests(server, maxRequestHeaders);

  let drained: Promise<void> | undefined;
  return {
    server,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      }),
    drain() {
      drained ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const res of inFlight.all()) closeAfter(res);
        server.closeIdleConnections();
      });
      return drained;
    },
    cut: () => server.closeAllConnections(),
  };
}

/**
 * Any answer written before the request's body has arrived in full (a page that ignores a body,
 * a refusal) closes the connection: otherwise Node would read the rest of the body, whatever its
 * size, to reach the connection's next request. Hooked where every head is written (Node's
 * implicit head goes through `writeHead` too); only requests that announce a body pay for it.
 */
function closeWhenAnsweredUnread(req: IncomingMessage, res: ServerResponse): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    closeIfBodyUnread(req, this);
    if (req.socket && !req.complete && this.getHeader('Connection') === 'close') lingerBeforeClosing(req, req.socket);
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse['writeHead'];
}

/**
 * How long a closing connection is held open after its answer, and how many more bytes of the
 * refused body are read (and discarded) meanwhile, at most.
 */
const LINGER = { ms: 2_000, bytes: 1024 * 1024 };

/**
 * A lingering close (as Apache's and nginx's): a socket closed while the client is still sending
 * its body answers the next bytes with a reset, and a client's TCP stack may then drop the answer
 * it had not read yet, so the client never learns why (413, 401…). After the answer, the write
 * side is closed at once; what still arrives is discarded up to LINGER.bytes, then no longer read
 * (the kernel's buffers fill and the client's writes wait), and the socket is destroyed once the
 * client has finished or gone, or after LINGER.ms: a client has that long to read the answer
 * before any reset, however busy its machine. (Counted on the socket: Node no longer emits the
 * body of a request it discards, so a count on the request saw nothing, the cap never held, and
 * the 1 s this waited was all a loaded test client had; it lost the answer.)
 */
function lingerBeforeClosing(req: IncomingMessage, socket: Socket): void {
  socket.destroySoon = function (this: Socket) {
    if (this.writable) this.end();
    let discarded = 0;
    const close = () => {
      clearTimeout(timer);
      this.destroy();
    };
    const timer = setTimeout(close, LINGER.ms).unref();
    this.once('close', () => clearTimeout(timer));
    // A listener of the socket's own: Node's parser then reads through it, and this counts what it discards.
    this.on('data', (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded >= LINGER.bytes) this.pause();
    });
    req.once('end', close);
  };
}

/**
 * The connection ends with this response: `Connection: close` when the head is not out yet
 * (Node then closes the socket after the last byte), otherwise an explicit end once it finishes.
 */
function closeAfter(res: ServerResponse): void {
  if (!res.headersSent) {
    res.setHeader('Connection', 'close');
    return;
  }
  res.once('finish', () => res.socket?.end());
}

export interface ShutdownOptions {
  name: string;
  logger: Logger;
  servers: DrainableServer[];
  /** Marks the process as draining (readiness 503) before the servers stop accepting. */
  markDraining: () => void;
  /** Releases what the servers used (stores, pools), after the last response is written. */
  release: () => Promise<unknown>;
  /** The whole stop never takes longer than this; past it, connections are cut and the exit code is 1. */
  limitMs?: number;
}

/** SIGTERM or SIGINT: drain every server, release, exit 0; a stop that overruns `limitMs` exits 1. */
export function stopOnSignals({ name, logger, servers, markDraining, release, limitMs = 9_500 }: ShutdownOptions): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, `${name} stopping: finishing the requests in flight`);
    markDraining();
    setTimeout(() => {
      logger.error(`${name} could not finish its requests within ${limitMs} ms; cutting the remaining connections`);
      for (const server of servers) server.cut();
      process.exit(1);
    }, limitMs).unref();
    Promise.all(servers.map((server) => server.drain()))
      .then(() => release())
      // The spans of the last requests, still in the batch, are exported before the exit.
      .then(() => stopTracing())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ err }, `${name}: error while stopping`);
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
