/**
 * The bench's yardstick: the least a hop in front of the pets-service can do. A bare `node:http`
 * server that puts an internal token in place of the client's Authorization, strips the public
 * `/v1` prefix, and pipes request and response through a keep-alive pool. No key check, no limits, no logging, no metrics: what the gateway costs above this is
 * what its features (and their implementation) cost.
 *
 * Run as its own process (`BARE_HOP_PORT`, `PETS_URL`, `INTERNAL_JWT_SECRET`) so its CPU can be
 * read from /proc like any other process of the bench.
 */
import http from 'node:http';
import { signServiceToken } from '../shared/src/internal-token';

const PREFIX = '/v1';
/** A token is signed once and reused; a fresh one well before the old one's 300 s expire. */
const TOKEN_LIFETIME_SECONDS = 300;
const RESIGN_AFTER_MS = 200_000;

const port = Number(process.env.BARE_HOP_PORT);
const target = new URL(process.env.PETS_URL ?? 'http://127.0.0.1:8082');
const secret = process.env.INTERNAL_JWT_SECRET ?? '';

let authorization = '';
const resign = () => {
  authorization = `Bearer ${signServiceToken('bench-hop', secret, TOKEN_LIFETIME_SECONDS)}`;
};
resign();
setInterval(resign, RESIGN_AFTER_MS).unref();

// The pool the gateway's proxy used when this bench was written; kept here, not imported, so the
// yardstick stays put while the gateway's proxy changes.
const agent = new http.Agent({ keepAlive: true, maxSockets: 512, maxFreeSockets: 64, keepAliveMsecs: 1_000, timeout: 30_000 });

const server = http.createServer((req, res) => {
  const url = req.url?.startsWith(PREFIX) ? req.url.slice(PREFIX.length) : (req.url ?? '/');
  const headers = { ...req.headers, authorization, host: target.host };
  const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: url, headers, agent }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end('bad gateway');
  });
  req.pipe(upstream);
});
server.keepAliveTimeout = 5_000;
server.listen(port, '127.0.0.1');

process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
