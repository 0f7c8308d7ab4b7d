import { connect, type AddressInfo } from 'node:net';
import request from 'supertest';
import { createDrainableServer, type DrainableServer } from '../../../shared/src/http-server';
import { stageApp, withoutKey } from '../../test/support/stage-app';
import { readBody } from './read-body';
import { authorize } from './authorize';

const MAX_BYTES = 1024;
const TIMEOUT_MS = 300;
const stage = readBody({ timeoutMs: TIMEOUT_MS, maxBytes: MAX_BYTES });

/** The stage behind `before` (if any), served as the gateway serves: the application answers Expect: 100-continue. */
async function serve(...before: Parameters<typeof stageApp>): Promise<{ server: DrainableServer; port: number }> {
  const server = createDrainableServer(
    stageApp(...before, stage),
    { headersTimeoutMs: 5_000, requestTimeoutMs: 10_000, keepAliveTimeoutMs: 5_000 },
    { draining: false },
    { continueByApplication: true },
  );
  await server.listen(0, '127.0.0.1');
  return { server, port: (server.server.address() as AddressInfo).port };
}

/**
 * Sends `head` (a request head, blank line included) and, if given, `body` once the server says
 * 100 Continue, or `partial` at once; resolves with everything received when the server closes.
 */
function exchange(port: number, head: string, send: { afterContinue?: string; partial?: string } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      const before = text;
      text += chunk.toString('latin1');
      if (send.afterContinue !== undefined && !before.includes('100 Continue') && text.includes('100 Continue\r\n\r\n')) socket.write(send.afterContinue);
    });
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    socket.write(head + (send.partial ?? ''));
  });
}

const headOf = (headers: string) => `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${headers}Connection: close\r\n\r\n`;

describe('the readBody stage', () => {
  const app = stageApp(stage);

  it('when the request has no body, then it goes on without one', async () => {
    expect((await request(app).get('/v1/pets').expect(200)).body).toEqual({});
  });

  it('when the body has a Content-Length, then it is read whole onto res.locals', async () => {
    expect((await request(app).post('/v1/pets').type('json').send('{"name":"Rex"}').expect(200)).body).toEqual({ body: '{"name":"Rex"}' });
  });

  it('when the body is chunked, then it is read whole onto res.locals', async () => {
    const req = request(app).post('/v1/pets').set('Transfer-Encoding', 'chunked').type('json');
    req.write('{"name":');
    req.write('"Rex"}');
    expect((await req.expect(200)).body).toEqual({ body: '{"name":"Rex"}' });
  });

  it('when the declared length is over the limit, then 413 at once, closing the connection', async () => {
    const res = await request(app).post('/v1/pets').type('json').send('x'.repeat(MAX_BYTES + 1)).expect(413);
    expect(res.body).toEqual({ code: 'payload_too_large', status: 413, message: 'The request body is larger than 1 KiB.' });
    expect(res.headers.connection).toBe('close');
  });

  it('when a chunked body passes the limit, then 413, closing the connection', async () => {
    const req = request(app).post('/v1/pets').set('Transfer-Encoding', 'chunked').type('json');
    req.write('x'.repeat(MAX_BYTES));
    req.write('xx');
    const res = await req.expect(413);
    expect(res.body).toMatchObject({ code: 'payload_too_large' });
    expect(res.headers.connection).toBe('close');
  });

  describe('on a connection', () => {
    let server: DrainableServer | undefined;
    afterEach(async () => {
      server?.cut();
      await server?.drain();
      server = undefined;
    });

    it('when the body does not arrive in full in time, then 408 request_timeout, closing the connection', async () => {
      let port: number;
      ({ server, port } = await serve());
      const answer = await exchange(port, headOf('Content-Length: 20\r\n'), { partial: '{"name":' });
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toMatch(/\r\nConnection: close\r\n/i);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
        code: 'request_timeout',
        status: 408,
        message: 'The request body was not received in full within 0.3 s; the connection is closed.',
      });
    });

    it('when the client waits for 100 Continue, then the stage tells it to send, and reads the body', async () => {
      let port: number;
      ({ server, port } = await serve());
      const answer = await exchange(port, headOf('Content-Length: 14\r\nExpect: 100-continue\r\n'), { afterContinue: '{"name":"Rex"}' });
      expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
      expect(answer).toContain('{"body":"{\\"name\\":\\"Rex\\"}"}');
    });

    it.each([
      ['the stage refuses the declared length', [], `Content-Length: ${MAX_BYTES + 1}\r\n`, 413],
      ['an earlier stage refuses the request', [withoutKey(), authorize([])], 'Content-Length: 14\r\n', 401],
    ] as const)('when %s, then a client waiting for 100 Continue is never told to send', async (_case, before, length, status) => {
      let port: number;
      ({ server, port } = await serve(...before));
      const answer = await exchange(port, headOf(`${length}Expect: 100-continue\r\n`));
      expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(answer).not.toContain('100 Continue');
    });
  });
});
