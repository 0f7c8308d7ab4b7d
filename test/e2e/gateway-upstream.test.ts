import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import jwt from 'jsonwebtoken';
import { freePort } from '../helpers/ports';
import { createAccountWithKey, startSystem, TEST_SECRET, type GatewayHandle, type SystemHandle } from '../helpers/system';

/** A real upstream HTTP server that records what the gateway sends it. */
function recordingUpstream(seen: Array<{ url: string; headers: IncomingHttpHeaders; body: string }>): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', headers: req.headers, body });
      // Hop-by-hop headers of its own, which must not reach the client.
      res.writeHead(200, {
        'content-type': 'application/json',
        connection: 'keep-alive, x-upstream-hop',
        'x-upstream-hop': 'secret',
        'keep-alive': 'timeout=65',
        'proxy-connection': 'keep-alive',
        'x-end-to-end': 'kept',
      });
      res.end('[]');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    resolve({ server, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` });
  }));
}

/** Sends raw bytes (a path no HTTP client would send as is) and reads the whole reply. */
async function rawRequest(port: number, text: string): Promise<string> {
  const { connect } = await import('node:net');
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    socket.on('data', (chunk) => (reply += chunk.toString('utf8')));
    socket.on('end', () => resolve(reply));
    socket.on('error', reject);
    socket.write(text);
  });
}

describe('the gateway in front of its upstream', () => {
  let system: SystemHandle;
  const seen: Array<{ url: string; headers: IncomingHttpHeaders; body: string }> = [];
  let recorder: { server: Server; url: string };
  let silent: TcpServer;
  let silentPort: number;
  let silentConnections = 0;
  let resetting: TcpServer;
  let resettingPort: number;

  beforeAll(async () => {
    recorder = await recordingUpstream(seen);
    // Accepts connections and never answers: a pets-service that hangs.
    silent = createTcpServer(() => {
      silentConnections += 1;
    });
    silentPort = await freePort();
    await new Promise<void>((resolve) => silent.listen(silentPort, '127.0.0.1', resolve));
    // Accepts and resets every connection.
    resetting = createTcpServer((socket) => socket.resetAndDestroy());
    resettingPort = await freePort();
    await new Promise<void>((resolve) => resetting.listen(resettingPort, '127.0.0.1', resolve));
    system = await startSystem({ gatewayEnv: { UPSTREAM_TIMEOUT_MS: '400', BODY_TIMEOUT_MS: '500' } });
  });

  let recorded: GatewayHandle | undefined;
  async function recordedGateway(): Promise<GatewayHandle> {
    recorded ??= await system.startGateway({ PETS_URL: recorder.url });
    return recorded;
  }

  afterAll(async () => {
    await system?.stop();
    recorder?.server.close();
    silent?.close();
    resetting?.close();
  });

  it("when a request is proxied, then the client's key is replaced by an internal token naming the account", async () => {
    const gateway = await recordedGateway();
    const { key, accountId } = await createAccountWithKey(gateway.adminUrl);
    const response = await fetch(`${gateway.url}/v1/pets?limit=5`, {
      headers: { authorization: `Bearer ${key}`, 'x-request-id': 'req-42', 'x-forwarded-for': '203.0.113.9' },
    });
    expect(response.status).toBe(200);

    const forwarded = seen.at(-1)!;
    expect(forwarded.url).toBe('/pets?limit=5');
    expect(JSON.stringify(forwarded.headers)).not.toContain(key);
    const token = String(forwarded.headers.authorization).replace(/^Bearer /, '');
    const claims = jwt.verify(token, TEST_SECRET, { algorithms: ['HS256'], audience: 'pets-service', issuer: 'gateway' }) as jwt.JwtPayload;
    expect(claims.sub).toBe(accountId);
    expect(claims.exp! - claims.iat!).toBeLessThanOrEqual(300);
    expect(forwarded.headers['x-request-id']).toBe('req-42');
    // TRUST_PROXY is unset: the client's X-Forwarded-For is not believed, the socket address is used.
    expect(forwarded.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(forwarded.headers['x-forwarded-proto']).toBe('http');
    // A host the client chose never reaches internal services.
    expect(forwarded.headers['x-forwarded-host']).toBeUndefined();
    expect(forwarded.headers['x-forwarded-prefix']).toBe('/v1');
  });

  it('when the client sends hop-by-hop and forwarding headers, then none reaches the pets-service; the gateway sets its own', async () => {
    const gateway = await recordedGateway();
    const { key } = await createAccountWithKey(gateway.adminUrl);
    const { request } = await import('node:http');
    await new Promise<void>((resolve, reject) => {
      const req = request(`${gateway.url}/v1/pets`, {
        headers: {
          authorization: `Bearer ${key}`,
          connection: 'keep-alive, x-client-hop',
          'x-client-hop': 'private',
          'keep-alive': 'timeout=999',
          te: 'trailers',
          'proxy-authorization': 'Basic c2VjcmV0',
          'proxy-connection': 'keep-alive',
          forwarded: 'for=6.6.6.6;host=evil.example',
          'x-real-ip': '6.6.6.6',
          'x-forwarded-host': 'evil.example',
          'x-forwarded-proto': 'gopher',
          'x-forwarded-prefix': '/admin',
          cookie: 'portal_session=abc',
          'x-end-to-end': 'kept',
        },
      });
      req.on('response', (res) => res.resume().on('end', resolve));
      req.on('error', reject);
      req.end();
    });
    const forwarded = seen.at(-1)!.headers;
    for (const name of ['x-client-hop', 'keep-alive', 'te', 'proxy-authorization', 'proxy-connection', 'forwarded', 'x-real-ip', 'x-forwarded-host', 'cookie']) {
      expect([name, forwarded[name]]).toEqual([name, undefined]);
    }
    expect(forwarded.connection ?? 'keep-alive').toBe('keep-alive');
    expect(forwarded['x-forwarded-for']).toBe('127.0.0.1');
    expect(forwarded['x-forwarded-proto']).toBe('http');
    expect(forwarded['x-forwarded-prefix']).toBe('/v1');
    expect(forwarded['x-end-to-end']).toBe('kept');
  });

  it("when the pets-service answers with hop-by-hop headers, then the client gets none of them, and the gateway's own keep-alive hint", async () => {
    const gateway = await recordedGateway();
    const { key } = await createAccountWithKey(gateway.adminUrl);
    const { get, Agent } = await import('node:http');
    const headers = await new Promise<Record<string, string | string[] | undefined>>((resolve, reject) => {
      get(`${gateway.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` }, agent: new Agent({ keepAlive: true }) }, (res) => {
        res.resume().on('end', () => resolve(res.headers));
      }).on('error', reject);
    });
    expect(headers['x-upstream-hop']).toBeUndefined();
    expect(headers['proxy-connection']).toBeUndefined();
    expect(headers.connection).toBe('keep-alive');
    // The gateway keeps idle client connections 5 s and says so; the pets-service's 65 s is not relayed.
    expect(headers['keep-alive']).toBe('timeout=5');
    expect(headers['x-end-to-end']).toBe('kept');
  });

  it.each([
    ['/v1/pets/..\\..\\healthz', 400],
    ['/v1/pets/..%5C..%5Chealthz', 400],
    ['/v1/pets/1%2F..%2F..%2Fhealthz', 400],
    ['/v1/pets/%2e%2e/%2e%2e/healthz', 400],
    ['/v1/pets/./1', 400],
    ['/v1/pets/../../healthz', 400],
  ])('when the path is %j, then it is refused (%i) and nothing reaches the pets-service', async (path, status) => {
    const gateway = await recordedGateway();
    const { key } = await createAccountWithKey(gateway.adminUrl);
    const before = seen.length;
    const reply = await rawRequest(gateway.port, `GET ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`);
    expect(reply).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(reply).toMatch(/"code":"invalid_parameter"/);
    expect(seen.length).toBe(before);
  });

  it('when a valid petId is percent-encoded, then the pets-service gets the path rebuilt from the route, not the raw one', async () => {
    const gateway = await recordedGateway();
    const { key } = await createAccountWithKey(gateway.adminUrl);
    await rawRequest(gateway.port, `GET /v1/pets/%31%32?x=1 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`);
    expect(seen.at(-1)!.url).toBe('/pets/12?x=1');
  });

  it('when a body is sent, then it reaches the upstream byte for byte', async () => {
    const gateway = await recordedGateway();
    const { key } = await createAccountWithKey(gateway.adminUrl);
    const body = '{"name":"Ünïcødé 🐶","categoryId":1,  "status":"sold"}';
    await fetch(`${gateway.url}/v1/pets`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
    expect(seen.at(-1)!.body).toBe(body);
  });

  it('when the upstream refuses connections, then 502 bad_gateway in the Error shape with rate-limit headers', async () => {
    const gateway = await system.startGateway({ PETS_URL: `http://127.0.0.1:${await freePort()}` });
    const { key } = await createAccountWithKey(gateway.adminUrl);
    const response = await fetch(`${gateway.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(502);
    expect(response.headers.get('x-ratelimit-remaining')).toBe('59');
    expect(await response.json()).toEqual({ code: 'bad_gateway', message: expect.any(String), status: 502 });
  });

  it('when the upstream resets the connection, then 502 bad_gateway', async () => {
    const gateway = await system.startGateway({ PETS_URL: `http://127.0.0.1:${resettingPort}` });
    const { key } = await createAccountWithKey(gateway.adminUrl);
    const response = await fetch(`${gateway.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(502);
    expect(((await response.json()) as { code: string }).code).toBe('bad_gateway');
  });

  it('when the upstream is slower than UPSTREAM_TIMEOUT_MS, then 504 gateway_timeout after about that long', async () => {
    const gateway = await system.startGateway({ PETS_URL: `http://127.0.0.1:${silentPort}` });
    const { key } = await createAccountWithKey(gateway.adminUrl);
    const started = Date.now();
    const response = await fetch(`${gateway.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } });
    const elapsed = Date.now() - started;
    expect(response.status).toBe(504);
    expect(await response.json()).toEqual({ code: 'gateway_timeout', message: expect.any(String), status: 504 });
    expect(elapsed).toBeGreaterThanOrEqual(350);
    expect(elapsed).toBeLessThan(5_000);
  });

  it('when the upstream dies in the middle of its answer, then the client connection is cut instead of left waiting', async () => {
    const dying = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000', server: 'pets/1.0', 'x-powered-by': 'x' });
      res.write('[{"id":1,');
      setTimeout(() => res.socket?.destroy(), 50);
    });
    await new Promise<void>((resolve) => dying.listen(0, '127.0.0.1', resolve));
    try {
      const address = dying.address();
      const gateway = await system.startGateway({ PETS_URL: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` });
      const { key } = await createAccountWithKey(gateway.adminUrl);
      const started = Date.now();
      const response = await fetch(`${gateway.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } });
      expect(response.status).toBe(200);
      // The upstream's own identity is not passed on.
      expect(response.headers.get('server')).toBeNull();
      expect(response.headers.get('x-powered-by')).toBeNull();
      await expect(response.text()).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      dying.close();
    }
  });

  it('when the client stops sending its body, then 408 request_timeout after BODY_TIMEOUT_MS, and the pets-service never hears of it', async () => {
    const gateway = await system.startGateway({ PETS_URL: `http://127.0.0.1:${silentPort}` });
    const { key } = await createAccountWithKey(gateway.adminUrl);
    const { connect } = await import('node:net');
    const before = silentConnections;
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect(gateway.port, '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('utf8')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      socket.write(
        `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":"R`,
      );
    });
    expect(reply).toMatch(/^HTTP\/1\.1 408 /);
    expect(reply).toContain('"code":"request_timeout"');
    expect(reply).toMatch(/\r\nconnection: close\r\n/i);
    expect(silentConnections).toBe(before);
  });

  it('when the pets-service is stopped, then the real gateway answers 502', async () => {
    const gateway = system.gateways[0]!;
    const { key } = await createAccountWithKey(gateway.adminUrl);
    expect((await fetch(`${gateway.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    await system.pets.stop();
    const response = await fetch(`${gateway.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(502);
  });
});
