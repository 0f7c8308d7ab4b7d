import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler, Response } from 'express';
import { createProxyMiddleware, debugProxyErrorsPlugin, proxyEventsPlugin } from 'http-proxy-middleware';
import type { Logger } from 'pino';
import { ApiError, sendError } from '../../../shared/src/errors';

export interface ProxyOptions {
  target: string;
  timeoutMs: number;
  /** Whether X-Forwarded-For from the client may be extended (TRUST_PROXY set) or replaced. */
  trustForwarded: boolean;
  logger: Logger;
  onUpstreamError?: (kind: 'bad_gateway' | 'gateway_timeout') => void;
}

const TIMED_OUT = 'UPSTREAM_TIMEOUT';
/** Headers that describe the pets-service itself, not the API. */
const UPSTREAM_ONLY_HEADERS = ['server', 'x-powered-by', 'set-cookie'];
const PUBLIC_PREFIX = '/v1';

/** A keep-alive agent: without one, http-proxy opens a new upstream connection per request. */
export function upstreamAgent(target: string): http.Agent {
  // Idle connections close after 30 s, well before the pets-service's 65 s keep-alive timeout.
  const options = { keepAlive: true, maxSockets: 512, maxFreeSockets: 64, keepAliveMsecs: 1_000, timeout: 30_000 };
  return target.startsWith('https:') ? new https.Agent(options) : new http.Agent(options);
}

/**
 * Streams the request to the pets-service (bodies are never parsed here) and maps
 * upstream failures to the Error shape: refused or reset → 502, too slow → 504.
 */
export function proxyToPets({ target, timeoutMs, trustForwarded, logger, onUpstreamError }: ProxyOptions): RequestHandler {
  const agent = upstreamAgent(target);

  const forward = createProxyMiddleware<IncomingMessage, ServerResponse>({
    target,
    agent,
    changeOrigin: true,
    xfwd: false,
    // The default plugins log through console and answer errors in plain text: keep only the safe ones.
    ejectPlugins: true,
    plugins: [debugProxyErrorsPlugin, proxyEventsPlugin],
    on: {
      proxyRes: (proxyRes, _req, res) => {
        for (const header of UPSTREAM_ONLY_HEADERS) delete proxyRes.headers[header];
        // An upstream that dies mid-answer must not leave the client waiting for the rest.
        proxyRes.once('close', () => {
          if (!proxyRes.complete) res.destroy();
        });
      },
      proxyReq: (proxyReq) => {
        // http-proxy reports its own proxyTimeout as a socket hang-up; a marked error tells them apart.
        proxyReq.setTimeout(timeoutMs, () => {
          const error = Object.assign(new Error(`upstream did not answer within ${timeoutMs} ms`), { code: TIMED_OUT });
          proxyReq.destroy(error);
        });
      },
      error: (error: Error & { code?: string }, req: IncomingMessage, res: ServerResponse | import('node:net').Socket) => {
        if (!('writeHead' in res)) {
          res.destroy();
          return;
        }
        // (Not req.destroyed: a request whose body was fully read is destroyed too.)
        if (res.headersSent || res.destroyed || req.socket.destroyed) {
          // Too late for an Error body: cut the response so the client sees it is incomplete.
          res.destroy();
          return;
        }
        const timedOut = error.code === TIMED_OUT;
        if (timedOut && !req.complete) {
          // The client stopped sending its body: not the pets-service's fault, and the stream is unusable.
          res.setHeader('Connection', 'close');
          sendError(res as Response, new ApiError('invalid_body', 'The request body was not received in full; the connection is closed.'));
          return;
        }
        const log = (req as { log?: Logger }).log ?? logger;
        log.warn({ err: error, upstream: target }, timedOut ? 'upstream timed out' : 'upstream unreachable');
        onUpstreamError?.(timedOut ? 'gateway_timeout' : 'bad_gateway');
        sendError(
          res as Response,
          timedOut
            ? new ApiError('gateway_timeout', `The pets-service did not answer within ${Math.round(timeoutMs / 100) / 10} s.`)
            : new ApiError('bad_gateway', 'The pets-service could not be reached.'),
        );
      },
    },
  });

  return (req, res, next) => {
    const remote = req.socket.remoteAddress ?? '';
    const offered = req.headers['x-forwarded-for'];
    req.headers['x-forwarded-for'] = trustForwarded && offered ? `${String(offered)}, ${remote}` : remote;
    req.headers['x-forwarded-proto'] = req.protocol;
    // Express derives protocol and host from X-Forwarded-* only when TRUST_PROXY trusts the sender.
    req.headers['x-forwarded-host'] = req.host ?? '';
    req.headers['x-forwarded-prefix'] = PUBLIC_PREFIX;
    void forward(req, res, next);
  };
}
