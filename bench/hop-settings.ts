/**
 * What both yardstick hops of the bench share (`bare-hop.ts` on `node:http`, `express-hop.ts` on
 * Express + http-proxy-middleware): their settings from the environment (`BARE_HOP_PORT`,
 * `PETS_URL`, `INTERNAL_JWT_SECRET`), the upstream pool, the internal token, and the way they stop.
 * Each hop runs as its own process so its CPU can be read from /proc like any other of the bench.
 */
import http from 'node:http';
import { signServiceToken } from '../shared/src/internal-token';

/** The public prefix a hop strips, as the gateway does. */
export const PREFIX = '/v1';
/** A token is signed once and reused; a fresh one well before the old one's 300 s expire. */
const TOKEN_LIFETIME_SECONDS = 300;
const RESIGN_AFTER_MS = 200_000;

export const port = Number(process.env.BARE_HOP_PORT);
export const target = new URL(process.env.PETS_URL ?? 'http://127.0.0.1:8082');
const secret = process.env.INTERNAL_JWT_SECRET ?? '';

let authorization = '';
const resign = () => {
  authorization = `Bearer ${signServiceToken('bench-hop', secret, TOKEN_LIFETIME_SECONDS)}`;
};
resign();
setInterval(resign, RESIGN_AFTER_MS).unref();

/** The internal token a hop puts in place of the client's Authorization. */
export const serviceAuthorization = (): string => authorization;

// The pool the gateway's proxy used when this bench was written; kept here, not imported, so the
// yardstick stays put while the gateway's proxy changes.
export const agent = new http.Agent({ keepAlive: true, maxSockets: 512, maxFreeSockets: 64, keepAliveMsecs: 1_000, timeout: 30_000 });

/** Listens on 127.0.0.1:`port` with the gateway's keep-alive timeout; SIGTERM closes every connection and exits. */
export function serve(server: http.Server): void {
  server.keepAliveTimeout = 5_000;
  server.listen(port, '127.0.0.1');
  process.on('SIGTERM', () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
