import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import request from 'supertest';
import type { Gateway } from '../src/gateway';
import { createKey, startGateway } from './support/gateway';

/**
 * The retry rules of the hop to the pets-service (upstream/pets-proxy.ts), with real upstreams:
 * a request is sent again to the next replica only when the first cannot have seen it (the
 * connection was refused, or nothing was written), or when it is safe to repeat (GET, HEAD).
 */
const servers: net.Server[] = [];
/** Every connection the replicas accepted: a silent replica never reads, so it never sees the gateway hang up. */
const connections = new Set<net.Socket>();
let gateway: Gateway | undefined;

afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  for (const socket of connections) socket.destroy();
  connections.clear();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function listen(server: net.Server): Promise<string> {
  servers.push(server);
  server.on('connection', (socket: net.Socket) => connections.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A replica that reads a request's head and resets the connection: it saw the request, and answers nothing. */
function resettingReplica(seen: string[]): Promise<string> {
  return listen(
    net.createServer((socket) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
        if (text.includes('\r\n\r\n')) {
          seen.push(text.slice(0, text.indexOf(' ', 5)));
          socket.resetAndDestroy();
        }
      });
    }),
  );
}

/** A replica that answers every request 200 and records its method and path. */
function answeringReplica(seen: string[]): Promise<string> {
  return listen(
    http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      req.resume().on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":1}'));
    }),
  );
}

/** A replica that accepts connections and never answers. */
function silentReplica(): Promise<string> {
  return listen(net.createServer(() => undefined));
}

async function gatewayOver(urls: string[], env: Record<string, string> = {}): Promise<{ gateway: Gateway; key: string }> {
  gateway = await startGateway({ PETS_URL: urls.join(','), ...env });
  return { gateway, key: (await createKey(gateway, 'pro')).key };
}

describe('the hop to the pets-service', () => {
  it('when the first replica resets a GET it received, then the GET is sent again to the next replica: 200', async () => {
    const reset: string[] = [];
    const served: string[] = [];
    const { gateway, key } = await gatewayOver([await resettingReplica(reset), await answeringReplica(served)]);
    const res = await request(gateway.publicApp).get('/v1/pets?limit=1').set('Authorization', `Bearer ${key}`);
    expect(res.status).toBe(200);
    expect(reset).toEqual(['GET /pets?limit=1']);
    expect(served).toEqual(['GET /pets?limit=1']);
  });

  it('when the first replica resets a POST it received, then it is not sent again (it may have created the pet): 502 bad_gateway', async () => {
    const reset: string[] = [];
    const served: string[] = [];
    const { gateway, key } = await gatewayOver([await resettingReplica(reset), await answeringReplica(served)]);
    const res = await request(gateway.publicApp).post('/v1/pets').set('Authorization', `Bearer ${key}`).send({ name: 'Rex', categoryId: 1 });
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ code: 'bad_gateway', message: 'The pets-service could not be reached.', status: 502 });
    expect(reset).toEqual(['POST /pets']);
    expect(served).toEqual([]);
  });

  it('when the first replica refuses the connection, then a POST goes to the next replica (the first never saw it)', async () => {
    const refusing = await listen(net.createServer());
    servers.pop()!.close(); // the port is free again: connections to it are refused
    await new Promise((resolve) => setTimeout(resolve, 50));
    const served: string[] = [];
    const { gateway, key } = await gatewayOver([refusing, await answeringReplica(served)]);
    const res = await request(gateway.publicApp).post('/v1/pets').set('Authorization', `Bearer ${key}`).send({ name: 'Rex', categoryId: 1 });
    expect(res.status).toBe(200);
    expect(served).toEqual(['POST /pets']);
  });

  it('when the replica does not answer within UPSTREAM_TIMEOUT_MS (shorter than a try), then 504 gateway_timeout, and the request is not sent to another replica', async () => {
    const served: string[] = [];
    const { gateway, key } = await gatewayOver([await silentReplica(), await answeringReplica(served)], { UPSTREAM_TIMEOUT_MS: '300' });
    const res = await request(gateway.publicApp).get('/v1/pets').set('Authorization', `Bearer ${key}`);
    expect(res.status).toBe(504);
    expect(res.body).toEqual({ code: 'gateway_timeout', message: 'The pets-service did not answer within 0.3 s.', status: 504 });
    expect(res.headers['x-ratelimit-remaining']).toBeDefined();
    expect(served).toEqual([]);
  });

  it('when a replica accepts a GET and does not answer within UPSTREAM_TRY_TIMEOUT_MS, then the GET goes to the next replica: 200 after about one try', async () => {
    const served: string[] = [];
    const { gateway, key } = await gatewayOver([await silentReplica(), await answeringReplica(served)], { UPSTREAM_TIMEOUT_MS: '5000', UPSTREAM_TRY_TIMEOUT_MS: '200' });
    const started = Date.now();
    const res = await request(gateway.publicApp).get('/v1/pets?limit=1').set('Authorization', `Bearer ${key}`);
    const tookMs = Date.now() - started;
    expect(res.status).toBe(200);
    expect(served).toEqual(['GET /pets?limit=1']);
    expect(tookMs).toBeGreaterThanOrEqual(190);
    expect(tookMs).toBeLessThan(4_000);
  });

  it('when a replica accepts a POST and does not answer, then it is not sent again after a try (it may create the pet): 504 after UPSTREAM_TIMEOUT_MS', async () => {
    const served: string[] = [];
    const { gateway, key } = await gatewayOver([await silentReplica(), await answeringReplica(served)], { UPSTREAM_TIMEOUT_MS: '800', UPSTREAM_TRY_TIMEOUT_MS: '100' });
    const started = Date.now();
    const res = await request(gateway.publicApp).post('/v1/pets').set('Authorization', `Bearer ${key}`).send({ name: 'Rex', categoryId: 1 });
    expect(res.status).toBe(504);
    expect(Date.now() - started).toBeGreaterThanOrEqual(780);
    expect(served).toEqual([]);
  });

  it('when every replica is silent, then the GET gets 504 once UPSTREAM_TIMEOUT_MS has passed in all, not a try timeout more', async () => {
    const { gateway, key } = await gatewayOver([await silentReplica(), await silentReplica()], { UPSTREAM_TIMEOUT_MS: '2000', UPSTREAM_TRY_TIMEOUT_MS: '1900' });
    const started = Date.now();
    const res = await request(gateway.publicApp).get('/v1/pets').set('Authorization', `Bearer ${key}`);
    const tookMs = Date.now() - started;
    expect(res.body).toEqual({ code: 'gateway_timeout', message: 'The pets-service did not answer within 2 s.', status: 504 });
    expect(tookMs).toBeGreaterThanOrEqual(1_980);
    // A second try given a whole UPSTREAM_TIMEOUT_MS of its own would end at 3.9 s: a second from
    // either side, so a loaded machine's delays cannot turn the verdict.
    expect(tookMs).toBeLessThan(2_900);
  });

  it('when UPSTREAM_TRY_TIMEOUT_MS is 0, then a GET waits on its replica for all of UPSTREAM_TIMEOUT_MS: 504', async () => {
    const served: string[] = [];
    const { gateway, key } = await gatewayOver([await silentReplica(), await answeringReplica(served)], { UPSTREAM_TIMEOUT_MS: '500', UPSTREAM_TRY_TIMEOUT_MS: '0' });
    const res = await request(gateway.publicApp).get('/v1/pets').set('Authorization', `Bearer ${key}`);
    expect(res.status).toBe(504);
    expect(served).toEqual([]);
  });

  it('when the first replica refuses the connection and the next is frozen, then the read is cut short there (the one short try) and the third answers: 200', async () => {
    const served: string[] = [];
    const refused = await listen(net.createServer());
    servers.pop()!.close(); // nothing listens there any more: connections are refused
    const { gateway, key } = await gatewayOver([refused, await silentReplica(), await answeringReplica(served)], { UPSTREAM_TIMEOUT_MS: '5000', UPSTREAM_TRY_TIMEOUT_MS: '200' });
    const started = Date.now();
    const res = await request(gateway.publicApp).get('/v1/pets').set('Authorization', `Bearer ${key}`);
    expect(res.status).toBe(200);
    expect(served).toEqual(['GET /pets']);
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('when the only other replica is backing off, then a slow read is not cut short: it waits for its answer', async () => {
    const refused = await listen(net.createServer());
    servers.pop()!.close();
    const slow = await listen(
      http.createServer((req, res) => {
        setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('[]'), 500);
      }),
    );
    const { gateway, key } = await gatewayOver([refused, slow], { UPSTREAM_TIMEOUT_MS: '5000', UPSTREAM_TRY_TIMEOUT_MS: '200' });
    // The first read learns that the first replica refuses connections, and goes to the slow one.
    expect((await request(gateway.publicApp).get('/v1/pets').set('Authorization', `Bearer ${key}`)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await request(gateway.publicApp).get('/v1/pets').set('Authorization', `Bearer ${key}`)).status).toBe(200);
  });
});
