import express from 'express';
import pino from 'pino';
import request from 'supertest';
import { accessLineJson, accessLog, jsonString } from './access-log';
import { ApiError, errorHandler } from './errors';
import { requestId } from './request-id';

/** An app whose log lines are collected, parsed, for inspection. */
function appLogging(): { app: express.Express; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  const app = express();
  app.use(requestId);
  app.use(accessLog(app, logger));
  app.get('/ok', (_req, res) => {
    res.json({});
  });
  app.get('/refused', () => {
    throw new ApiError('unauthorized', 'no');
  });
  app.get('/store', () => {
    throw new ApiError('not_implemented', 'later');
  });
  app.get('/unavailable', () => {
    throw new ApiError('service_unavailable', 'busy');
  });
  app.get('/broken', () => {
    throw new TypeError('a real bug');
  });
  app.get('/warns', (req, res) => {
    req.log.warn('something to know');
    res.json({});
  });
  app.use(errorHandler(logger));
  return { app, lines };
}

const LEVEL = { info: 30, warn: 40, error: 50 };

describe('the access log', () => {
  it.each([
    ['/ok', 200, LEVEL.info],
    ['/refused', 401, LEVEL.info],
    ['/store', 501, LEVEL.info],
    ['/unavailable', 503, LEVEL.error],
  ])('when %s answers %i, then one line is written at the level it deserves, without an invented error', async (path, status, level) => {
    const { app, lines } = appLogging();
    await request(app).get(path).set('X-Request-Id', 'abc-1').expect(status);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level, reqId: 'abc-1', method: 'GET', url: path, status });
    expect(lines[0]).not.toHaveProperty('err');
  });

  it('when an API key or a bearer value is sent in the URL, then the access line has it redacted', async () => {
    const { app, lines } = appLogging();
    const key = 'ask_live_4eC39HqLyjWDarjtT1zdp7dcQ2m9Xx';
    await request(app).get(`/refused?api_key=${key}&access_token=eyJhbGciOi.x.y`).expect(401);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.url).toBe('/refused?api_key=[redacted]&access_token=[redacted]');
    expect(JSON.stringify(lines)).not.toContain('4eC39HqLyjWD');
    expect(JSON.stringify(lines)).not.toContain('eyJhbGciOi');
  });

  it('when a handler throws a real exception, then it is logged with its stack, and the access line is at error', async () => {
    const { app, lines } = appLogging();
    await request(app).get('/broken').expect(500);
    const exception = lines.find((line) => line.err !== undefined) as { err: { stack: string }; level: number };
    expect(exception.level).toBe(LEVEL.error);
    expect(exception.err.stack).toContain('a real bug');
    expect(lines.find((line) => line.status === 500)).toMatchObject({ level: LEVEL.error });
  });

  it.each([
    ['/refused', 401, 0],
    ['/ok', 200, 0],
    ['/broken', 500, 1],
  ])("when %s answers %i, then the request's own logger is made only to write a line (%i made)", async (path, status, made) => {
    // The request's logger is a child of the events logger, made on first use of `req.log`: a
    // refusal that writes nothing but its access line must not pay for one (issue 29, the 429 path).
    const lines: Array<Record<string, unknown>> = [];
    const events = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    const makeChild = events.child.bind(events);
    let children = 0;
    events.child = ((...args: Parameters<typeof makeChild>) => {
      children += 1;
      return makeChild(...args);
    }) as typeof events.child;
    const app = express();
    app.use(requestId);
    app.use(accessLog(app, pino({ level: 'silent' }), events));
    app.get('/ok', (_req, res) => void res.json({}));
    app.get('/refused', () => {
      throw new ApiError('unauthorized', 'no');
    });
    app.get('/broken', () => {
      throw new TypeError('a real bug');
    });
    app.use(errorHandler(events));
    await request(app).get(path).set('X-Request-Id', 'abc-2').expect(status);
    expect(children).toBe(made);
    // What is logged still carries the request's id.
    for (const line of lines) expect(line.reqId).toBe('abc-2');
    expect(lines).toHaveLength(made);
  });

  it("when a stage logs through req.log, then its line carries the request's id", async () => {
    const { app, lines } = appLogging();
    await request(app).get('/warns').set('X-Request-Id', 'trace-9').expect(200);
    expect(lines[0]).toMatchObject({ level: LEVEL.warn, reqId: 'trace-9', msg: 'something to know' });
  });
});

describe('the access log with a logger of its own', () => {
  it('when a stage logs through req.log, then that line goes to the events logger at once, and only the access line to the access logger', async () => {
    const access: string[] = [];
    const events: string[] = [];
    const app = express();
    app.use(requestId);
    app.use(accessLog(app, pino({}, { write: (line: string) => access.push(line) }), pino({}, { write: (line: string) => events.push(line) })));
    app.get('/warns', (req, res) => {
      req.log.warn('look at this');
      res.json({});
    });
    await request(app).get('/warns').expect(200);
    expect(events.map((line) => JSON.parse(line) as { msg: string }).map((line) => line.msg)).toEqual(['look at this']);
    expect(access.map((line) => JSON.parse(line) as { msg: string }).map((line) => line.msg)).toEqual(['request completed']);
  });
});

describe('the access line written without pino', () => {
  /** A pino logger on a fixed clock whose lines are collected as written. */
  function collecting(options: pino.LoggerOptions = {}): { logger: pino.Logger; written: string[] } {
    const written: string[] = [];
    const logger = pino({ name: 'gateway', timestamp: () => ',"time":1700000000000', ...options }, { write: (line: string) => written.push(line) });
    return { logger, written };
  }

  /** An app with the access log on `logger`, answering GET /v1/ok. */
  function appOn(logger: pino.Logger): express.Express {
    const app = express();
    app.use(requestId);
    app.use(accessLog(app, logger));
    app.get('/v1/ok', (_req, res) => {
      res.json({});
    });
    return app;
  }

  it.each([
    ['a plain request', 30, 'abc-1', 'GET', '/v1/pets?limit=20', 200, 1.5, '127.0.0.1', undefined, false, 'request completed'],
    ['a failure', 50, 'abc-2', 'POST', '/v1/pets', 503, 12, '::1', undefined, false, 'request failed'],
    ['an abandoned request with a caller', 30, 'abc-3', 'DELETE', '/pets/1', 200, 0, '10.0.0.1', { caller: 'gateway', subject: 'acct_1' }, true, 'request aborted before its response was complete'],
    ['a URL and method that need escaping', 30, 'x', 'GET', '/v1/pets?q="a\\b"\u0001é\u2028', 404, 0.1, undefined, { caller: undefined, subject: 'only' }, false, 'request completed'],
    ['no method and a time that is not finite', 30, 'y', undefined, '/', 400, Number.NaN, undefined, undefined, false, 'request completed'],
  ] as const)('for %s, then it is byte for byte the line pino writes', (_what, level, reqId, method, url, status, ms, remoteAddress, extra, aborted, msg) => {
    const { logger, written } = collecting();
    const fields = { reqId, method, url, status, ms, remoteAddress, ...extra, ...(aborted ? { aborted } : {}) };
    if (level === 50) logger.error(fields, msg);
    else logger.info(fields, msg);
    expect(accessLineJson(logger, level, reqId, method, url, status, ms, remoteAddress, extra, aborted, msg)).toBe(written[0]);
  });

  it.each([
    ['a mixin (tracing)', { mixin: () => ({ trace_id: 't' }) }],
    ['redaction', { redact: ['url'] }],
    ['a log formatter', { formatters: { log: (o: object) => ({ ...o, extra: 1 }) } }],
    ['a nested key', { nestedKey: 'payload' }],
    ['a message prefix', { msgPrefix: '[access] ' }],
    ['another message key', { messageKey: 'message' }],
  ] as const)('when the logger transforms its lines (%s), then pino writes the access line itself', async (_what, options) => {
    const { logger, written } = collecting(options as pino.LoggerOptions);
    const info = jest.spyOn(logger, 'info');
    await request(appOn(logger)).get('/v1/ok?limit=1').set('X-Request-Id', 'r-1').expect(200);
    expect(info).toHaveBeenCalledTimes(1);
    expect(info.mock.calls[0]![0]).toMatchObject({ reqId: 'r-1', method: 'GET', url: '/v1/ok?limit=1', status: 200 });
    expect(written).toHaveLength(1);
  });

  it('when the logger is plain, then the access line goes straight to its stream, redacted, as pino would have written it', async () => {
    const { logger, written } = collecting();
    const info = jest.spyOn(logger, 'info');
    await request(appOn(logger)).get('/v1/ok?api_key=ask_live_secret').set('X-Request-Id', 'r-2').expect(200);
    expect(info).not.toHaveBeenCalled();
    expect(written).toHaveLength(1);
    const line = JSON.parse(written[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 30, time: 1700000000000, name: 'gateway', reqId: 'r-2', method: 'GET', status: 200, remoteAddress: expect.any(String), msg: 'request completed' });
    expect(line.url).toMatch(/^\/v1\/ok\?api_key=/);
    expect(line.url).not.toContain('ask_live_secret');
  });

  it('when the level is above the line, then nothing is written', async () => {
    const { logger, written } = collecting({ level: 'error' });
    await request(appOn(logger)).get('/v1/ok').expect(200);
    expect(written).toEqual([]);
  });

  it("when the level is lowered after the app was made, then the access line follows it", async () => {
    const { logger, written } = collecting({ level: 'error' });
    const app = appOn(logger);
    logger.level = 'info';
    await request(app).get('/v1/ok').expect(200);
    expect(written).toHaveLength(1);
  });
});

describe('jsonString', () => {
  it.each([
    ['an id', 'c0ffee00-1234-4abc-8def-0123456789ab'],
    ['an IPv6 address with a zone', 'fe80::1%eth0'],
    ['the empty string', ''],
    ['a quote and a backslash', 'a"b\\c'],
    ['control characters', 'a\u0000b\u001fc\u007f'],
    ['non-ASCII text and separators', 'é€\u2028\u2029😀'],
    ['a lone surrogate', 'x\ud800y'],
    ['a long plain string', 'a'.repeat(129)],
    ['a long string to escape', `${'a'.repeat(200)}"`],
  ])('writes %s as JSON.stringify does', (_what, text) => {
    expect(jsonString(text)).toBe(JSON.stringify(text));
  });
});
