import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';

/**
 * Why `upstream/pets-proxy.ts` does two parts of the hop itself instead of leaving them to
 * http-proxy-middleware (ADR 0023). Each test runs HPM 3 as it comes, with a real upstream, and
 * shows the rule it would break; should one ever fail, HPM has changed and our part can go.
 */
let upstream: http.Server;
let target: string;
const servers: http.Server[] = [];

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    if (req.url === '/silent') return; // never answers
    res.writeHead(200, { 'content-type': 'application/json', connection: 'keep-alive, x-upstream-hop', 'x-upstream-hop': 'secret', 'keep-alive': 'timeout=65' });
    res.end('[]');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
afterAll(() => {
  upstream.closeAllConnections();
  upstream.close();
  for (const server of servers) server.close();
});

async function serve(app: express.Express): Promise<number> {
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  return (server.address() as AddressInfo).port;
}

function get(port: number, path: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    http.get({ port, path, agent: new http.Agent({ keepAlive: true }) }, (res) => resolve(res.resume())).on('error', reject);
  });
}

describe('http-proxy-middleware 3 left to itself', () => {
  it("when the answer is relayed by http-proxy's outgoing passes, then a Connection: close set before (the drain's) is overwritten and the upstream's hop-by-hop headers reach the client: so the head is written by us (selfHandleResponse)", async () => {
    const app = express();
    app.use((_req, res, next) => {
      res.setHeader('Connection', 'close'); // what a draining server sets on a request in flight
      next();
    });
    app.use(createProxyMiddleware({ target, ejectPlugins: true, agent: new http.Agent({ keepAlive: true }) }));
    const res = await get(await serve(app), '/pets');
    expect(res.headers.connection).toBe('keep-alive, x-upstream-hop');
    expect(res.headers['x-upstream-hop']).toBe('secret');
    expect(res.headers['keep-alive']).toBe('timeout=65');
  });

  it('when the upstream is silent past proxyTimeout, then the error is the same ECONNRESET "socket hang up" a reset gives: so the upstream timeout is our own timer, told apart as 504', async () => {
    const seen: Array<{ code?: string; message: string }> = [];
    const app = express();
    app.use(
      createProxyMiddleware({
        target,
        ejectPlugins: true,
        proxyTimeout: 200,
        plugins: [
          (proxy) =>
            proxy.on('error', (error: NodeJS.ErrnoException, _req, res) => {
              seen.push({ code: error.code, message: error.message });
              (res as http.ServerResponse).writeHead(502).end();
            }),
        ],
      }),
    );
    const res = await get(await serve(app), '/silent');
    expect(res.statusCode).toBe(502);
    expect(seen).toEqual([{ code: 'ECONNRESET', message: 'socket hang up' }]);
  });
});
