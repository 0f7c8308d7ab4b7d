import type { RequestHandler } from 'express';
import pino from 'pino';
import request from 'supertest';
import type { Gateway } from '../src/gateway';
import { createKey, startGateway } from './support/gateway';

/**
 * What the gateway takes from an operator middleware's error (issue 24's review, item 7): only
 * `status`, `code` and `message`. Before, its other fields reached the error handler as if the
 * gateway's own parts had raised it: a `Content-Range` header with CRLF made the handler throw
 * (Express's HTML 500, with the stack in development, logged as plain text), a 412 or 416 without
 * a code got /docs's file messages, and `type: 'entity.too.large'` turned a 500 into a 413.
 */

const ERRORS: Record<string, unknown> = {
  'crlf-header': Object.assign(new Error('x'), { status: 416, headers: { 'Content-Range': 'bytes */1\r\nX-Evil: 1' } }),
  'precondition-without-code': Object.assign(new Error('x'), { status: 412 }),
  'range-without-code': Object.assign(new Error('x'), { status: 416, headers: { 'Content-Range': 'bytes */1' } }),
  'body-parser-type': Object.assign(new Error('x'), { status: 500, type: 'entity.too.large', limit: 1024 }),
  'refusal-with-headers': Object.assign(new Error('Not from there.'), { status: 403, code: 'address_not_allowed', headers: { 'X-Evil': '1', 'Retry-After': '9' }, expose: true }),
};

const failAsAsked: RequestHandler = (req, res, next) => {
  const fault = req.get('x-test-fault') ?? '';
  if (fault === 'after-head') {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.write('half an answer');
    next(new Error('a bug in a plugin: after the head'));
    return;
  }
  next(ERRORS[fault]);
};

describe("an operator middleware's error", () => {
  const lines: { level: number; msg: string; err?: { message?: string } }[] = [];
  let gateway: Gateway;
  let key: string;

  beforeAll(async () => {
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) });
    gateway = await startGateway({}, { operatorMiddleware: [failAsAsked], logger, accessLogger: pino({ level: 'silent' }) });
    // What Express shows its own error page with: the stack, in development.
    gateway.publicApp.set('env', 'development');
    key = (await createKey(gateway, 'pro')).key;
  });
  afterAll(() => gateway.close());

  const get = (fault: string) => request(gateway.publicApp).get('/v1/pets').set('Authorization', `Bearer ${key}`).set('X-Test-Fault', fault);

  it.each(['crlf-header', 'precondition-without-code', 'range-without-code', 'body-parser-type'])(
    'when it is %s, then the answer is the Error shape 500, nothing of it taken (no header, no other status), never an HTML page',
    async (fault) => {
      const response = await get(fault);
      expect(response.status).toBe(500);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.body).toEqual({ code: 'internal_error', message: 'The server failed to handle the request.', status: 500 });
      expect(response.headers['x-evil']).toBeUndefined();
      expect(response.headers['content-range']).toBeUndefined();
      expect(response.text).not.toMatch(/<|at |\.ts|\.js/);
      expect(response.headers['x-ratelimit-limit']).toBeDefined();
    },
  );

  it('when it has a 4xx status and a code, then its status, code and message are the answer, and its headers are not', async () => {
    const response = await get('refusal-with-headers');
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ code: 'address_not_allowed', message: 'Not from there.', status: 403 });
    expect(response.headers['x-evil']).toBeUndefined();
    expect(response.headers['retry-after']).toBeUndefined();
  });

  it('when an operator error carries a header Node refuses, then it is logged through pino, as an error of the operator middleware', async () => {
    expect((await get('crlf-header')).status).toBe(500);
    expect(lines).toContainEqual(expect.objectContaining({ level: 50, msg: 'unhandled error', err: expect.objectContaining({ message: 'an operator middleware failed: x' }) }));
  });

  it('when it fails after the head of its answer was sent, then the response is cut short and the error logged through pino (not printed by Express)', async () => {
    await expect(get('after-head')).rejects.toThrow();
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 50,
        msg: 'error after the answer had begun: the response is cut short',
        err: expect.objectContaining({ message: 'an operator middleware failed: a bug in a plugin: after the head' }),
      }),
    );
  });
});
