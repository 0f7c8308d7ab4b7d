import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { createAccountWithKey, startSystem, type SystemHandle } from '../helpers/system';
import { call } from '../helpers/traffic';
import { sleep } from '../helpers/ports';

/** Established TCP connections to a local port, from /proc/net/tcp (Linux). */
function establishedConnectionsTo(port: number): number {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const ESTABLISHED = '01';
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[2]?.endsWith(`:${hexPort}`) && fields[3] === ESTABLISHED).length;
}

function openConnection(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', reject);
  });
}

describe('slow and oversized request bodies', () => {
  let system: SystemHandle;
  let key: string;
  let port: number;

  beforeAll(async () => {
    system = await startSystem({ gatewayEnv: { BODY_TIMEOUT_MS: '3000', ANON_PER_MINUTE: '100000' } });
    port = system.gateways[0]!.port;
    ({ key } = await createAccountWithKey(system.gateways[0]!.adminUrl, { plan: 'enterprise', perMinute: 1_000_000, perDay: 1_000_000_000 }));
  });
  afterAll(() => system?.stop());

  it('when hundreds of clients trickle their bodies, then they hold no pets-service connection and other requests answer promptly', async () => {
    const head = `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"name":`;
    const slow = await Promise.all(Array.from({ length: 300 }, () => openConnection(port)));
    for (const socket of slow) {
      socket.on('error', () => undefined);
      socket.write(head);
    }
    const trickle = setInterval(() => {
      for (const socket of slow) if (!socket.destroyed) socket.write(' ');
    }, 200);
    try {
      await sleep(300);
      // Meanwhile, ordinary clients are served at once: the slow ones hold no upstream connection.
      for (let i = 0; i < 20; i++) {
        const reply = await call(`${system.gateways[0]!.url}/v1/pets?limit=1`, { key });
        expect(reply.status).toBe(200);
        expect(reply.ms).toBeLessThan(1_000);
      }
      const created = await call(`${system.gateways[0]!.url}/v1/pets`, { key, method: 'POST', body: { name: 'Prompt', categoryId: 1 } });
      expect(created.status).toBe(201);
      // The pets-service saw only the ordinary requests' connections, none per slow client.
      const upstreamConnections = establishedConnectionsTo(Number(new URL(system.petsUrl).port));
      expect(upstreamConnections).toBeGreaterThan(0);
      expect(upstreamConnections).toBeLessThan(20);
    } finally {
      clearInterval(trickle);
    }
    // Past BODY_TIMEOUT_MS each slow client gets 408 request_timeout and its connection is closed.
    const replies = await Promise.all(
      slow.map(
        (socket) =>
          new Promise<string>((resolve) => {
            let text = '';
            socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
            socket.on('close', () => resolve(text));
          }),
      ),
    );
    expect(replies.filter((reply) => /^HTTP\/1\.1 408 /.test(reply) && reply.includes('"code":"request_timeout"')).length).toBe(300);
  });

  it('when a chunked body passes 16 KiB, then 413 comes at once, before the client has finished sending', async () => {
    const socket = await openConnection(port);
    let reply = '';
    socket.on('data', (chunk: Buffer) => (reply += chunk.toString('utf8')));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.on('error', () => undefined);
    socket.write(`POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const chunk = 'x'.repeat(4096);
    for (let i = 0; i < 5; i++) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    // The body never ends (no terminating chunk): the answer must not wait for it.
    await Promise.race([closed, sleep(2_000)]);
    expect(reply).toMatch(/^HTTP\/1\.1 413 /);
    expect(reply).toContain('"code":"payload_too_large"');
    socket.destroy();
  });

  it('when Content-Length declares more than 16 KiB, then 413 before a byte of the body is read', async () => {
    const socket = await openConnection(port);
    let reply = '';
    socket.on('data', (chunk: Buffer) => (reply += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.write(`POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n`);
    await Promise.race([new Promise((resolve) => socket.once('close', resolve)), sleep(2_000)]);
    expect(reply).toMatch(/^HTTP\/1\.1 413 /);
    expect(reply).toMatch(/\r\nConnection: close\r\n/i);
    socket.destroy();
  });
});
