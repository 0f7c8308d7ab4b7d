import type { AddressInfo } from 'node:net';
import { createDrainableServer, type DrainableServer } from '../../shared/src/http-server';
import { MIB, dribble, pour, rawRequest, within } from '../../test/helpers/raw-socket';
import type { Gateway } from '../src/gateway';
import { ADMIN_TOKEN } from './support/gateway';
import { startPortalGateway } from './support/portal';

/**
 * Issue 24, item 1: on every port a body is read only when it is needed, never past the route's
 * limit and never for longer than BODY_TIMEOUT_MS. A gateway in process on real servers, as
 * main.ts puts it on them, driven over raw sockets: a declared gigabyte is refused at once and the
 * connection closed after a little of it; a refusal that needs no body closes without reading one;
 * a form or an admin body dribbled a byte at a time gets 408 and the connection is closed.
 */
const BODY_TIMEOUT_MS = 1_000;
/** Far beyond BODY_TIMEOUT_MS, so that only the body deadline can answer within the tests' deadlines. */
const TIMEOUTS = { headersTimeoutMs: 10_000, requestTimeoutMs: 120_000, keepAliveTimeoutMs: 5_000 };
/** A form cookie as a portal page sets it: the double-submit check needs no server state. */
const FORM_COOKIE = `portal-form=${'f'.repeat(43)}`;
const GIGABYTE = 'Content-Length: 1000000000\r\n';

let gateway: Gateway;
let servers: DrainableServer[] = [];
let publicPort: number;
let adminPort: number;

async function serve(app: Parameters<typeof createDrainableServer>[0]): Promise<number> {
  const server = createDrainableServer(app, TIMEOUTS, { draining: false }, { continueByApplication: true });
  await server.listen(0, '127.0.0.1');
  servers.push(server);
  return (server.server.address() as AddressInfo).port;
}

beforeAll(async () => {
  gateway = await startPortalGateway({ BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS) });
  publicPort = await serve(gateway.publicApp);
  adminPort = await serve(gateway.adminApp);
});
afterAll(async () => {
  for (const server of servers) server.cut();
  await Promise.all(servers.map((server) => server.drain()));
  servers = [];
  await gateway.close();
});

const head = (requestLine: string, headers: string) => `${requestLine} HTTP/1.1\r\nHost: localhost\r\n${headers}\r\n`;
const form = 'Content-Type: application/x-www-form-urlencoded\r\nOrigin: http://localhost\r\n';
const json = 'Content-Type: application/json\r\n';
const admin = `Authorization: Bearer ${ADMIN_TOKEN}\r\n`;

describe('a declared gigabyte', () => {
  it.each([
    ['a log-in form from the portal', 'public', 413, 'POST /portal/login', `${form}Cookie: ${FORM_COOKIE}\r\n`],
    ['a sign-up form from the portal', 'public', 413, 'POST /portal/signup', `${form}Cookie: ${FORM_COOKIE}\r\n`],
    ['a key form without a session', 'public', 401, 'POST /portal/keys', form],
    ['a log-in form without the form cookie', 'public', 403, 'POST /portal/login', form],
    ['a log-in form from another site', 'public', 403, 'POST /portal/login', 'Content-Type: application/x-www-form-urlencoded\r\nOrigin: http://evil.example\r\n'],
    ['a log-in in JSON', 'public', 415, 'POST /portal/login', `${json}Origin: http://localhost\r\n`],
    ['a portal page with the wrong method', 'public', 405, 'PUT /portal/login', form],
    // A page that ignores a body is served, and the connection closes rather than read the body to its end.
    ['a portal page', 'public', 200, 'GET /portal/login', ''],
    ['GET /healthz', 'public', 413, 'GET /healthz', ''],
    ['GET /readyz', 'public', 413, 'GET /readyz', ''],
    ['GET /docs/', 'public', 413, 'GET /docs/', ''],
    ['POST /docs', 'public', 405, 'POST /docs', json],
    ['an unknown path', 'public', 404, 'POST /nowhere', json],
    ['POST /v1/pets without a key', 'public', 401, 'POST /v1/pets', json],
    ['an admin request with a valid token', 'admin', 413, 'POST /admin/accounts', `${json}${admin}`],
    ['an admin request that takes no body', 'admin', 413, 'DELETE /admin/keys/key_00000000000000000000', admin],
  ] as const)('when %s (%s port) announces a gigabyte, then %i at once with Connection: close, and the connection ends after a little of it', async (_case, port, status, requestLine, headers) => {
    const exchange = rawRequest(port === 'public' ? publicPort : adminPort, head(requestLine, `${headers}${GIGABYTE}`));
    const written = await pour(exchange.socket, 96 * MIB);
    await within(exchange.closed, 10_000);
    exchange.socket.destroy();
    expect(exchange.reply()).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(exchange.reply()).toMatch(/\r\nconnection: close\r\n/i);
    // The kernel's buffers take some megabytes whatever the server does; a server reading on would take all 96.
    expect(written).toBeLessThan(32 * MIB);
  });
});

describe('a refusal before the body is needed', () => {
  it.each([
    ['a wrong admin token', 'admin', 401, 'POST /admin/accounts', `${json}Authorization: Bearer wrong-token-0123456789\r\n`],
    ['a key form without a session', 'public', 401, 'POST /portal/keys', form],
  ] as const)('when %s (%s port) comes with a body still to send, then %i at once, never 100 Continue, and the connection closes without waiting for the body', async (_case, port, status, requestLine, headers) => {
    const exchange = rawRequest(port === 'public' ? publicPort : adminPort, head(requestLine, `${headers}Content-Length: 100\r\nExpect: 100-continue\r\n`));
    await within(exchange.closed, 10_000);
    expect(exchange.reply()).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(exchange.reply()).not.toContain('100 Continue');
    expect(exchange.reply()).toMatch(/\r\nconnection: close\r\n/i);
    expect(exchange.socket.readableEnded).toBe(true);
    exchange.socket.destroy();
  });
});

describe('a body dribbled a byte every half second', () => {
  it.each([
    ['a portal log-in form', 'public', 'POST /portal/login', `${form}Cookie: ${FORM_COOKIE}\r\n`, /Too slow/],
    ['an admin request', 'admin', 'POST /admin/accounts', `${json}${admin}`, /"code":"request_timeout"/],
  ] as const)('when %s (%s port) arrives slower than BODY_TIMEOUT_MS, then 408 and the connection is closed', async (_case, port, requestLine, headers, body) => {
    const started = Date.now();
    const exchange = rawRequest(port === 'public' ? publicPort : adminPort, head(requestLine, `${headers}Content-Length: 200\r\n`));
    const stop = dribble(exchange.socket, 'x'.repeat(200), 500);
    // The deadline is generous: only the body deadline (1 s) can answer before it, the server's own backstop is 120 s.
    await within(exchange.closed, BODY_TIMEOUT_MS + 9_000);
    stop();
    const elapsed = Date.now() - started;
    exchange.socket.destroy();
    expect(exchange.reply()).toMatch(/^HTTP\/1\.1 408 /);
    expect(exchange.reply()).toMatch(/\r\nconnection: close\r\n/i);
    expect(exchange.reply()).toMatch(body);
    expect(elapsed).toBeLessThan(BODY_TIMEOUT_MS + 9_000);
  });
});
