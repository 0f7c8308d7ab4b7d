import { Agent, request } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { createDrainableServer, type DrainableServer } from './http-server';
import { KEEP_ALIVE_MARGIN_MS } from './idle-connections';

/**
 * The lingering close of an answer written before the request's body arrived (a refusal of an
 * upload): the client gets the answer, and the server reads only a little more of the body, even
 * from a client that goes on sending after the server has closed its side.
 */
const MIB = 1024 * 1024;
let server: DrainableServer;
let port: number;

beforeAll(async () => {
  server = createDrainableServer(
    (_req, res) => {
      res.writeHead(413, { 'Content-Type': 'application/json' });
      res.end('{"code":"payload_too_large"}');
    },
    { headersTimeoutMs: 5_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 5_000 },
    { draining: false },
  );
  await server.listen(0, '127.0.0.1');
  port = (server.server.address() as AddressInfo).port;
});
afterAll(() => server.drain());

/** A client that announces a gigabyte and writes it as fast as it is taken, whatever the server says, reading what comes back. */
function stubbornUpload(): Promise<{ reply: string; written: number }> {
  return new Promise((resolve) => {
    // allowHalfOpen: the server's FIN does not end this side; it goes on writing, as a careless client would.
    const socket: Socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const chunk = Buffer.alloc(64 * 1024);
    let reply = '';
    let written = 0;
    socket.on('data', (data: Buffer) => (reply += data.toString('latin1')));
    socket.on('error', () => undefined); // a reset once the server gives up is how it ends
    socket.once('close', () => resolve({ reply, written }));
    socket.write('POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000000000\r\n\r\n');
    const more = () => {
      while (!socket.destroyed && written < 512 * MIB) {
        written += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', more);
      }
      if (!socket.destroyed) socket.end();
    };
    more();
  });
}

describe('a lingering close after an answer to a body not read', () => {
  it('when the client goes on sending after the answer, then it has the answer, and the server stops reading after about a mebibyte and closes', async () => {
    const { reply, written } = await stubbornUpload();
    expect(reply).toMatch(/^HTTP\/1\.1 413 /);
    expect(reply).toMatch(/\r\nconnection: close\r\n/i);
    // The server reads at most LINGER.bytes more, then the kernel's buffers (some megabytes) fill
    // and the client's writes wait until the close. A server reading on would take all 512.
    expect(written).toBeLessThan(64 * MIB);
  });
});

describe('keep-alive connections', () => {
  const KEEP_ALIVE_MS = 1_000;
  const lifecycle = { draining: false };
  let keepAlive: DrainableServer;
  let keepAlivePort: number;

  beforeAll(async () => {
    keepAlive = createDrainableServer((_req, res) => res.end('ok'), { headersTimeoutMs: 5_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: KEEP_ALIVE_MS }, lifecycle);
    await keepAlive.listen(0, '127.0.0.1');
    keepAlivePort = (keepAlive.server.address() as AddressInfo).port;
  });
  afterAll(() => keepAlive.drain());

  /** One request on a connection of its own; resolves with the response's head and the client's socket. */
  function get(headers: Record<string, string> = {}): Promise<{ head: Record<string, string | string[] | undefined>; socket: Socket; at: number }> {
    return new Promise((resolve, reject) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      request({ port: keepAlivePort, host: '127.0.0.1', agent, headers }, (res) => {
        const socket = res.socket; // the agent takes it back at the end
        res.resume();
        res.once('end', () => resolve({ head: res.headers, socket, at: Date.now() }));
      })
        .once('error', reject)
        .end();
    });
  }

  it('when a response keeps its connection, then it advertises the keep-alive limit as Node would; one that closes it does not', async () => {
    const kept = await get();
    expect(kept.head.connection).toBe('keep-alive');
    expect(kept.head['keep-alive']).toBe(`timeout=${KEEP_ALIVE_MS / 1000}`);
    kept.socket.destroy();

    const asked = await get({ connection: 'close' });
    expect(asked.head.connection).toBe('close');
    expect(asked.head['keep-alive']).toBeUndefined();

    lifecycle.draining = true;
    try {
      const draining = await get();
      expect(draining.head.connection).toBe('close');
      expect(draining.head['keep-alive']).toBeUndefined();
    } finally {
      lifecycle.draining = false;
    }
  });

  it('when a keep-alive connection stays idle, then the server closes it, no sooner than the advertised limit and its margin', async () => {
    // A bare socket: Node's own Agent would close it first, a second before the advertised limit.
    const socket = connect({ port: keepAlivePort, host: '127.0.0.1' });
    const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
    const answeredAt = await new Promise<number>((resolve) => {
      let reply = '';
      socket.on('data', (chunk: Buffer) => {
        reply += chunk.toString('latin1');
        if (reply.endsWith('\r\n\r\nok')) resolve(Date.now());
      });
      socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n');
    });
    // Generous above (the test's own timeout); never below: a slow machine only makes it later.
    expect((await closed) - answeredAt).toBeGreaterThanOrEqual(KEEP_ALIVE_MS + KEEP_ALIVE_MARGIN_MS);
  }, 30_000);
});
