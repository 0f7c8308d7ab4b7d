import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { presetLocals, stageApp } from '../../test/support/stage-app';
import type { Principal } from '../accounts/types';
import { ReplicaSet } from '../upstream/replicas';
import { createPetsProxy } from '../upstream/pets-proxy';
import { proxyToPets, searchOf } from './proxy';
import type { V1Locals } from './locals';

/** What the pets-service stand-in saw of the one request it was sent. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const principal = { keyId: 'key_1', accountId: 'acct_1' } as Principal;

/** The pets-service, as far as this stage is concerned: a server in this process that answers what it received. */
let upstream: Server;
let petsUrl: string;
let requestsUpstream = 0;
beforeAll(async () => {
  upstream = createServer((req, res) => {
    requestsUpstream++;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const seen: Seen = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      res.writeHead(201, { 'Content-Type': 'application/json', 'X-From-Pets': 'yes' });
      res.end(JSON.stringify(seen));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  petsUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => upstream.close(resolve));
});

function appWith(locals: V1Locals, trustForwarded = false) {
  const petsProxy = createPetsProxy({ replicas: new ReplicaSet([petsUrl]), timeoutMs: 5_000 });
  return stageApp(presetLocals(locals), proxyToPets({ petsProxy, trustForwarded, internalAuthorization: (accountId) => `Bearer internal-token-for-${accountId}` }));
}

describe('the proxyToPets stage', () => {
  it("when the request reaches it, then the pets-service gets the rebuilt path with the query, the internal token in place of the key, and the gateway's X-Forwarded-*", async () => {
    const res = await request(appWith({ principal }))
      .get('/v1/pets/42/?limit=2')
      .set('Authorization', 'Bearer ask_live_the-client-key')
      .set('X-Forwarded-For', '203.0.113.9')
      .set('X-Forwarded-Proto', 'https')
      .set('Accept-Language', 'fr')
      .expect(201);
    const seen = res.body as Seen;
    expect(seen).toMatchObject({ method: 'GET', url: '/pets/42?limit=2', body: '' });
    expect(seen.headers).toMatchObject({
      authorization: 'Bearer internal-token-for-acct_1',
      // The client's own are not trusted (no TRUST_PROXY): replaced.
      'x-forwarded-for': '127.0.0.1',
      'x-forwarded-proto': 'http',
      'x-forwarded-prefix': '/v1',
      'accept-language': 'fr',
    });
    expect(res.headers['x-from-pets']).toBe('yes');
  });

  it("when the client's X-Forwarded-For may be trusted, then the client's address is appended to it", async () => {
    const seen = (await request(appWith({ principal }, true)).get('/v1/pets').set('X-Forwarded-For', '203.0.113.9').expect(201)).body as Seen;
    expect(seen.headers['x-forwarded-for']).toBe('203.0.113.9, 127.0.0.1');
  });

  it('when readBody holds a body, then that body is sent with its length, whatever the client announced', async () => {
    const app = appWith({ principal, body: Buffer.from('{"name":"Rex"}') });
    for (const client of [request(app).post('/v1/pets').set('Transfer-Encoding', 'chunked'), request(app).post('/v1/pets').type('json').send('"a"')]) {
      const seen = (await client.expect(201)).body as Seen;
      expect(seen).toMatchObject({ method: 'POST', url: '/pets', body: '{"name":"Rex"}' });
      expect(seen.headers['content-length']).toBe('14');
      expect(seen.headers['transfer-encoding']).toBeUndefined();
    }
  });

  it.each([
    ['no principal', {}, '/v1/pets'],
    ['no matched route', { principal }, '/v1/nothing'],
  ])('when it is reached with %s, then the answer is 500 and nothing is sent upstream', async (_case, locals, path) => {
    const before = requestsUpstream;
    const res = await request(appWith(locals)).get(path).expect(500);
    expect(res.body).toMatchObject({ code: 'internal_error' });
    expect(requestsUpstream).toBe(before);
  });
});

describe('searchOf', () => {
  it.each([
    ['/pets', ''],
    ['/pets?limit=2', '?limit=2'],
    ['/pets?limit=2#top', '?limit=2'],
    ['/pets#top?limit=2', ''],
  ])('when the target is %s, then the query forwarded is "%s"', (url, search) => {
    expect(searchOf(url)).toBe(search);
  });
});
