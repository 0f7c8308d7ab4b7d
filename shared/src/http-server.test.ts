import { connect, type AddressInfo, type Socket } from 'node:net';
import { createDrainableServer, type DrainableServer } from './http-server';

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
