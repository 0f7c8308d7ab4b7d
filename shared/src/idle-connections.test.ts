import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { IdleConnections } from './idle-connections';

/**
 * The sweep of idle keep-alive connections, on a real server and real sockets, with a clock of the
 * test's own: each sweep runs when the test calls it, at the time the test sets.
 */
const LIMIT_MS = 5_000;
let clock = 0;
let idle: IdleConnections;
let server: Server;
let port: number;
/** Responses the handler holds instead of answering (path `/hold`), to be answered by the test. */
const held: ServerResponse[] = [];
/** The server's side of each connection, as accepted. */
let accepted: Socket[] = [];

beforeEach(async () => {
  clock = 0;
  accepted = [];
  idle = new IdleConnections(LIMIT_MS, () => clock);
  server = createServer({ keepAliveTimeout: 0 }, (req, res) => {
    if (req.url === '/hold') held.push(res);
    else res.end('ok');
  });
  server.on('connection', (socket: Socket) => {
    accepted.push(socket);
    idle.add(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterEach(async () => {
  for (const res of held.splice(0)) res.end();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

interface Client {
  socket: Socket;
  closed: Promise<void>;
  /** One request on this connection; resolves with the whole response once its body is in. */
  get(path?: string): Promise<string>;
}

function client(): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' }, () => resolve({ socket, closed, get }));
    socket.once('error', reject);
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    function get(path = '/'): Promise<string> {
      return new Promise((done, fail) => {
        let text = '';
        const onData = (chunk: Buffer) => {
          text += chunk.toString('latin1');
          if (/\r\n\r\n[\s\S]*ok$/.test(text)) {
            socket.off('data', onData);
            done(text);
          }
        };
        socket.on('data', onData);
        socket.once('close', () => fail(new Error(`connection closed before the response to ${path} (had: ${JSON.stringify(text)})`)));
        socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
      });
    }
  });
}

describe('IdleConnections', () => {
  it('when a keep-alive connection stays idle after a response, then it is closed at the first sweep that finds it idle for the limit, not before', async () => {
    const c = await client();
    await c.get();
    idle.sweep(); // finds it idle: from now
    clock = LIMIT_MS - 1;
    idle.sweep();
    await c.get(); // still open: it answers
    clock += LIMIT_MS - 1; // the request above moved it: idle again from the sweep below
    idle.sweep();
    clock += LIMIT_MS - 1;
    idle.sweep();
    await c.get();
    idle.sweep();
    clock += LIMIT_MS;
    idle.sweep();
    await c.closed;
    await waitFor(() => idle.size === 0);
  });

  it('when a response takes far longer than the limit, then its connection is not closed, and is idle only from its end', async () => {
    const c = await client();
    const slow = c.get('/hold');
    await waitFor(() => held.length === 1); // the server has taken the request the handler holds
    for (let i = 0; i < 10; i++) {
      clock += LIMIT_MS;
      idle.sweep();
    }
    held.shift()!.end('ok');
    await slow;
    idle.sweep();
    clock += LIMIT_MS - 1;
    idle.sweep();
    await c.get();
    expect(c.socket.destroyed).toBe(false);
  });

  it('when a connection has not sent a byte yet, then the sweep leaves it to the headers timeout', async () => {
    const c = await client();
    await waitFor(() => idle.size === 1);
    for (let i = 0; i < 10; i++) {
      clock += LIMIT_MS;
      idle.sweep();
    }
    await c.get();
  });

  it('when a request is still arriving, then its bytes count as activity', async () => {
    const c = await client();
    await c.get();
    idle.sweep();
    clock += LIMIT_MS - 1;
    const readBefore = accepted[0]!.bytesRead;
    c.socket.write('GET / HTTP/1.1\r\n');
    await waitFor(() => accepted[0]!.bytesRead > readBefore);
    idle.sweep();
    clock += LIMIT_MS - 1;
    idle.sweep();
    const rest = new Promise<string>((resolve) => c.socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1'))));
    c.socket.write('Host: localhost\r\n\r\n');
    expect(await rest).toMatch(/^HTTP\/1\.1 200/);
  });

  it('when connections close, then they are no longer followed', async () => {
    const clients = await Promise.all([client(), client(), client()]);
    await waitFor(() => idle.size === 3);
    for (const c of clients) c.socket.destroy();
    await waitFor(() => idle.size === 0);
  });
});

async function waitFor(condition: () => boolean, deadlineMs = 10_000): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
