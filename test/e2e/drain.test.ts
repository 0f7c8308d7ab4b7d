import http from 'node:http';
import { connect } from 'node:net';
import { createServer, type Server } from 'node:http';
import { signInternalToken } from '../../shared/src/internal-token';
import { sleep, waitFor } from '../helpers/ports';
import { COMPILED, ServiceProcess, spawnOnFreePorts } from '../helpers/processes';
import { createAccountWithKey, startSystem, TEST_ADMIN_TOKEN, TEST_SECRET, type SystemHandle } from '../helpers/system';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

interface Outcome {
  status?: number;
  body?: string;
  complete?: boolean;
  connection?: string;
  error?: string;
}

/** One request on a keep-alive agent; resolves with what came back, never rejects. */
function send(agent: http.Agent, url: string, headers: Record<string, string>): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode, body, complete: res.complete, connection: res.headers.connection }));
      res.on('error', (error) => resolve({ status: res.statusCode, body, complete: false, error: error.message }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
  });
}

/**
 * Clients that keep sending on their keep-alive connections until `until()` says stop or the server
 * stops answering; every outcome is kept.
 */
async function keepAliveClients(count: number, url: string, headers: Record<string, string>, until: () => boolean, outcomes: Outcome[] = []): Promise<Outcome[]> {
  await Promise.all(
    Array.from({ length: count }, async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        while (!until()) {
          const outcome = await send(agent, url, headers);
          outcomes.push(outcome);
          if (outcome.error) break;
        }
      } finally {
        agent.destroy();
      }
    }),
  );
  return outcomes;
}

/**
 * Waits until the traffic has had enough answers before the stop (a loaded machine answers fewer in
 * a fixed time), or 10 s.
 */
async function untilAnswered(outcomes: Outcome[], count: number): Promise<void> {
  for (const started = Date.now(); outcomes.filter((o) => o.status !== undefined).length < count && Date.now() - started < 10_000; ) await sleep(50);
}

/** Every answer that arrived is whole and valid JSON of the expected status; connection-level refusals carry no answer. */
function expectOnlyWholeAnswers(outcomes: Outcome[], status: number): void {
  const answered = outcomes.filter((o) => o.status !== undefined);
  expect(answered.length).toBeGreaterThan(20);
  for (const outcome of answered) {
    expect({ status: outcome.status, complete: outcome.complete, error: outcome.error }).toEqual({ status, complete: true, error: undefined });
    expect(() => JSON.parse(outcome.body ?? '')).not.toThrow();
  }
  // What did not get an answer never reached the server: the connection was refused or closed first.
  for (const outcome of outcomes.filter((o) => o.status === undefined)) expect(outcome.error).toMatch(/ECONNREFUSED|ECONNRESET|socket hang up|EPIPE/);
}

describe('stopping under keep-alive traffic', () => {
  let system: SystemHandle;
  let key: string;

  beforeEach(async () => {
    system = await startSystem({ gatewayEnv: { ANON_PER_MINUTE: '1000000' } });
    ({ key } = await createAccountWithKey(system.gateways[0]!.adminUrl, { plan: 'enterprise', perMinute: 1_000_000, perDay: 1_000_000_000 }));
  });
  afterEach(() => system?.stop());

  it('when the gateway gets SIGTERM while clients keep sending on keep-alive connections, then every answer is whole and it exits 0 without waiting out idle connections', async () => {
    const gateway = system.gateways[0]!;
    let signalled = 0;
    const before: Outcome[] = [];
    const traffic = keepAliveClients(16, `${gateway.url}/v1/pets?limit=5`, { authorization: `Bearer ${key}` }, () => signalled > 0 && Date.now() - signalled > 3_000, before);
    await untilAnswered(before, 25);
    signalled = Date.now();
    gateway.process.child.kill('SIGTERM');
    const code = await gateway.process.waitForExit();
    const stoppedInMs = Date.now() - signalled;
    const outcomes = await traffic;
    expect(code).toBe(0);
    // Idle keep-alive connections are closed at once: not left to their 5 s timeout (generous below it).
    expect(stoppedInMs).toBeLessThan(4_500);
    expectOnlyWholeAnswers(outcomes, 200);
    // Connections were closed by the server as their responses ended: the last answer on each said so.
    expect(outcomes.some((o) => o.connection === 'close')).toBe(true);
  });

  it('when the pets-service gets SIGTERM while the gateway keeps sending on its keep-alive pool, then it exits 0 without waiting out idle connections', async () => {
    const token = signInternalToken(TEST_SECRET, { issuer: 'service:drain-test', subject: 'service:drain-test', lifetimeSeconds: 300 });
    let signalled = 0;
    const before: Outcome[] = [];
    const traffic = keepAliveClients(16, `${system.petsUrl}/pets?limit=5`, { authorization: `Bearer ${token}` }, () => signalled > 0 && Date.now() - signalled > 3_000, before);
    await untilAnswered(before, 25);
    signalled = Date.now();
    system.pets.child.kill('SIGTERM');
    // 0: it finished before its 9.5 s stop limit (past it, the exit is 1), where its idle keep-alive
    // connections (65 s) would have held it.
    expect(await system.pets.waitForExit()).toBe(0);
    expectOnlyWholeAnswers(await traffic, 200);
  });
});

describe('draining with a slow request in flight', () => {
  let slowUpstream: Server;
  let dataDir: string;
  let arrived: () => void;
  /** Resolved when the upstream has a request: it is in flight at the gateway. */
  const received = new Promise<void>((resolve) => (arrived = resolve));
  let release: () => void;
  /** Resolved when the test lets the upstream answer the request it holds. */
  const released = new Promise<void>((resolve) => (release = resolve));

  beforeAll(async () => {
    // Holds every request until the test releases it: a request in flight for as long as the test needs.
    slowUpstream = createServer((_req, res) => {
      arrived();
      void released.then(() => res.writeHead(200, { 'content-type': 'application/json' }).end('[]'));
    });
    await new Promise<void>((resolve) => slowUpstream.listen(0, '127.0.0.1', resolve));
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'drain-'));
  });
  afterAll(() => {
    release();
    slowUpstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('when a stop begins, then readiness answers 503 on an open connection, the request in flight completes with Connection: close, and the exit is 0', async () => {
    const address = slowUpstream.address();
    const upstreamUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const gateway = await spawnOnFreePorts(2, async ([port = 0, adminPort = 0]) => {
      const child = ServiceProcess.spawn(COMPILED.gateway, {
        PORT: String(port),
        ADMIN_PORT: String(adminPort),
        PETS_URL: upstreamUrl,
        ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        INTERNAL_JWT_SECRET: TEST_SECRET,
        // The stop's first line (info) tells the test the stop has begun.
        LOG_LEVEL: 'info',
      });
      await child.ready(`http://127.0.0.1:${port}/healthz`);
      return { child, url: `http://127.0.0.1:${port}`, adminUrl: `http://127.0.0.1:${adminPort}` };
    });
    const { key } = await createAccountWithKey(gateway.adminUrl);
    const slow = send(new http.Agent({ keepAlive: true }), `${gateway.url}/v1/pets`, { authorization: `Bearer ${key}` });
    await received;
    // An open connection the gateway has accepted (it answered on it), with a readiness probe begun
    // (headers half sent) when the stop begins: it is received, so it is answered.
    const probe = connect(Number(new URL(gateway.url).port), '127.0.0.1');
    let answer = '';
    probe.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    const probeClosed = new Promise((resolve) => probe.once('close', resolve));
    await new Promise((resolve) => probe.once('connect', resolve));
    probe.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await waitFor(() => answer.includes('{"status":"ok"}'), 10_000, 'the probe connection to be answered once');
    answer = '';
    probe.write('GET /readyz HTTP/1.1\r\nHost: localhost\r\n');
    gateway.child.child.kill('SIGTERM');
    // The stop has begun (it says so, then marks the process draining in the same step).
    await waitFor(() => gateway.child.output.includes('stopping: finishing the requests in flight'), 10_000, 'the gateway to begin its stop');
    probe.write('\r\n');
    await probeClosed;
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(answer).toContain('"status":"draining"');
    release();
    expect(await slow).toMatchObject({ status: 200, complete: true, connection: 'close', body: '[]' });
    expect(await gateway.child.waitForExit()).toBe(0);
  });
});
