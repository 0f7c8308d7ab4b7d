import { connect, type Socket } from 'node:net';
import { createAccountWithKey, startSystem, type SystemHandle } from '../helpers/system';

/**
 * A refused request's body is never read (issue 17, item 5): the refusal closes the connection,
 * and `Expect: 100-continue` is answered only once the key and the limits have passed. Raw
 * sockets against a real gateway process.
 */
let system: SystemHandle;
let port: number;
let key: string;

beforeAll(async () => {
  system = await startSystem();
  port = Number(new URL(system.gateways[0]!.url).port);
  ({ key } = await createAccountWithKey(system.gateways[0]!.adminUrl));
});
afterAll(() => system?.stop());

const MIB = 1024 * 1024;

/** Opens a connection, sends `head`, and collects what comes back until the server closes. */
function open(head: string): { socket: Socket; reply: () => string; closed: Promise<void> } {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined); // a reset after the answer is how a refused upload may end
  socket.write(head);
  return { socket, reply: () => text, closed };
}

/** Writes zeros as fast as the connection takes them, until it closes or `cap` bytes are out; resolves with the bytes written. */
function pour(socket: Socket, cap: number): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024);
  return new Promise((resolve) => {
    let written = 0;
    const done = () => resolve(written);
    socket.once('close', done);
    const more = () => {
      while (!socket.destroyed && written < cap) {
        written += chunk.length;
        if (!socket.write(chunk)) return socket.once('drain', more);
      }
      if (written >= cap) {
        socket.off('close', done);
        resolve(written);
      }
    };
    more();
  });
}

describe('bodies of refused requests', () => {
  it('when a request without a key announces a gigabyte, then 401 with Connection: close, and the connection ends after a little of it', async () => {
    const { socket, reply, closed } = open('POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n');
    const written = await pour(socket, 256 * MIB);
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    socket.destroy();
    expect(reply()).toMatch(/^HTTP\/1\.1 401 /);
    expect(reply()).toMatch(/\r\nconnection: close\r\n/i);
    // The kernel's buffers take some megabytes whatever the gateway does; a gateway reading on would take all 256.
    expect(written).toBeLessThan(64 * MIB);
  });

  it('when a portal form announces a gigabyte, then it is refused with Connection: close, and the connection ends after a little of it', async () => {
    const { socket, reply, closed } = open('POST /portal/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000000000\r\n\r\n');
    const written = await pour(socket, 256 * MIB);
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    socket.destroy();
    expect(reply()).toMatch(/^HTTP\/1\.1 4\d\d /);
    expect(reply()).toMatch(/\r\nconnection: close\r\n/i);
    expect(written).toBeLessThan(64 * MIB);
  });

  it('when a request without a key expects 100-continue, then 401 and never 100 Continue', async () => {
    const { reply, closed } = open('POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 30\r\nExpect: 100-continue\r\n\r\n');
    await closed;
    expect(reply()).toMatch(/^HTTP\/1\.1 401 /);
    expect(reply()).not.toContain('100 Continue');
    expect(reply()).toMatch(/\r\nconnection: close\r\n/i);
  });

  it('when a request with a valid key expects 100-continue, then 100 Continue, and the body sent after it creates the pet: 201', async () => {
    const body = JSON.stringify({ name: 'Rex', categoryId: 1 });
    const { socket, reply, closed } = open(
      `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
    );
    await new Promise<void>((resolve) => {
      const check = () => (reply().includes('\r\n\r\n') ? resolve() : socket.once('data', check));
      check();
    });
    expect(reply()).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n$/);
    socket.write(body);
    await closed;
    expect(reply()).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
  });
});
