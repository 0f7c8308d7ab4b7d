import { createConnection } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createDrainableServer, type DrainableServer } from './http-server';

/**
 * What Node refuses before the application runs, answered in the Error shape on a real server
 * (`createDrainableServer`, as both services use it) over raw sockets.
 */
let server: DrainableServer;
let port: number;

beforeAll(async () => {
  server = createDrainableServer(
    (req, res) => {
      // Like a body parser: the answer waits for the whole body.
      req.resume();
      req.on('end', () => {
        res.setHeader('Content-Type', 'application/json');
        res.end('{"ok":true}');
      });
    },
    { headersTimeoutMs: 1_000, requestTimeoutMs: 2_000, keepAliveTimeoutMs: 5_000 },
    { draining: false },
  );
  await server.listen(0, '127.0.0.1');
  port = (server.server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.cut();
  await server.drain();
});

/** Sends `text` (and keeps the socket open) until the server has answered and closed, or 8 s pass. */
function exchange(text: string): Promise<{ status: number; headers: Record<string, string>; body: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(port, '127.0.0.1');
    let reply = '';
    const settle = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      const [head = '', body = ''] = reply.split('\r\n\r\n', 2);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body, closed });
    };
    const timer = setTimeout(() => settle(false), 8_000);
    socket.on('data', (chunk) => (reply += chunk.toString('utf8')));
    socket.on('end', () => settle(true));
    socket.on('error', reject);
    socket.write(text);
  });
}

function expectErrorShape(reply: Awaited<ReturnType<typeof exchange>>, status: number, code: string, message: RegExp): void {
  expect(reply.status).toBe(status);
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  expect(reply.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  const body = JSON.parse(reply.body) as { code: string; message: string; status: number };
  expect(body).toEqual({ code, message: expect.stringMatching(message), status });
}

describe('requests refused before the application, in the Error shape', () => {
  it('when an HTTP/1.1 request has no Host header, then 400 invalid_parameter naming it, and the connection closes', async () => {
    const reply = await exchange('GET /x HTTP/1.1\r\n\r\n');
    expectErrorShape(reply, 400, 'invalid_parameter', /must carry a Host header/);
    expect(reply.closed).toBe(true);
  });

  it('when a request has two Host headers, then 400 invalid_parameter', async () => {
    expectErrorShape(await exchange('GET /x HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n'), 400, 'invalid_parameter', /more than one Host header/);
  });

  it('when an HTTP/1.0 request has no Host header, or an HTTP/1.1 one has one, then the application answers', async () => {
    expect((await exchange('GET /x HTTP/1.0\r\n\r\n')).body).toBe('{"ok":true}');
    expect((await exchange('GET /x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n')).body).toBe('{"ok":true}');
  });

  it('when Expect is anything but 100-continue, then 417 expectation_failed naming it', async () => {
    const reply = await exchange('POST /x HTTP/1.1\r\nHost: a\r\nExpect: foo\r\nContent-Length: 2\r\n\r\n');
    expectErrorShape(reply, 417, 'expectation_failed', /^Expect: foo is not supported/);
    expect(reply.closed).toBe(true);
  });

  it('when the method is CONNECT, then 501 not_implemented instead of a silent close', async () => {
    expectErrorShape(await exchange('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'), 501, 'not_implemented', /CONNECT is not supported/);
  });

  it('when the method is unknown to HTTP, then 501 not_implemented', async () => {
    expectErrorShape(await exchange('FOO /x HTTP/1.1\r\nHost: a\r\n\r\n'), 501, 'not_implemented', /method is not one this server knows/);
  });

  it('when the transfer coding is not just chunked, then 501 not_implemented naming it, and the body is not taken as is', async () => {
    const reply = await exchange('POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n');
    expectErrorShape(reply, 501, 'not_implemented', /^Transfer-Encoding: gzip, chunked is not supported/);
    expect(reply.closed).toBe(true);
    expect((await exchange('POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\nConnection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n')).body).toBe('{"ok":true}');
  });

  const fillers = (count: number) => Array.from({ length: count }, (_, i) => `X-Filler-${i}: ${i}\r\n`).join('');

  it('when a request carries more than 100 headers, then 431 request_header_fields_too_large, and the connection closes', async () => {
    // Host, Connection and 99 fillers: 101.
    const reply = await exchange(`GET /x HTTP/1.1\r\nHost: a\r\n${fillers(99)}Connection: close\r\n\r\n`);
    expectErrorShape(reply, 431, 'request_header_fields_too_large', /more than 100 header fields/);
    expect(reply.closed).toBe(true);
    expect((await exchange(`GET /x HTTP/1.1\r\nHost: a\r\n${fillers(98)}Connection: close\r\n\r\n`)).body).toBe('{"ok":true}');
  });

  it('when a second Host comes after 1,100 headers (past what Node keeps), then 431, not a request with one Host', async () => {
    const reply = await exchange(`GET /x HTTP/1.1\r\nHost: a\r\n${fillers(1_100)}Host: b\r\nConnection: close\r\n\r\n`);
    expectErrorShape(reply, 431, 'request_header_fields_too_large', /(more than|at most) 100 header fields/);
  });

  it('when the headers pass 16 KiB, then 431 too', async () => {
    const reply = await exchange(`GET /x HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\nConnection: close\r\n\r\n`);
    expectErrorShape(reply, 431, 'request_header_fields_too_large', /16 KiB/);
  });

  it('when the request line is malformed, then 400 invalid_parameter', async () => {
    expectErrorShape(await exchange('GET /x HTTP/9\r\nHost: a\r\n\r\n'), 400, 'invalid_parameter', /could not be parsed as HTTP\/1\.1/);
  });

  it('when the headers stop arriving, then 408 request_timeout within about the headers timeout, and the connection closes', async () => {
    const started = Date.now();
    const reply = await exchange('GET /x HTTP/1.1\r\nHost: a\r\nX-Slow: a');
    expectErrorShape(reply, 408, 'request_timeout', /did not arrive in full in time/);
    expect(reply.closed).toBe(true);
    expect(Date.now() - started).toBeLessThan(4_000); // 1 s timeout, checked every second
  });

  it('when a body stops short of its Content-Length, then 408 request_timeout once the request timeout passes, not a parse error', async () => {
    const started = Date.now();
    const reply = await exchange('POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 50\r\n\r\n{}');
    expectErrorShape(reply, 408, 'request_timeout', /did not arrive in full in time/);
    expect(Date.now() - started).toBeLessThan(5_000); // 2 s timeout, checked every second
  });
});
