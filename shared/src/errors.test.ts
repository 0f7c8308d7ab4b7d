import express from 'express';
import pino from 'pino';
import request from 'supertest';
import { ApiError, errorHandler } from './errors';

describe('the error handler, when the answer cannot be written', () => {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) });
  const app = express();
  // Express's own final handler would answer an HTML page with the stack in development.
  app.set('env', 'development');
  app.get('/bad-header', (_req, _res, next) => next(new ApiError('range_not_satisfiable', 'No such bytes.', { 'Content-Range': 'bytes */1\r\nX-Evil: 1' })));
  app.use(errorHandler(logger));

  it('when an error brings a header value Node refuses, then the answer is still the Error shape 500, and the failure is logged through pino', async () => {
    const response = await request(app).get('/bad-header');
    expect(response.status).toBe(500);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.body).toEqual({ code: 'internal_error', message: 'The server failed to handle the request.', status: 500 });
    expect(response.headers['content-range']).toBeUndefined();
    expect(response.headers['x-evil']).toBeUndefined();
    expect(lines).toContainEqual(expect.objectContaining({ level: 50, msg: 'the error answer could not be written: answered 500 instead' }));
  });
});
