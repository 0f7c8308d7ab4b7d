import express from 'express';
import request from 'supertest';
import { sendJson } from './json-response';

describe('sendJson', () => {
  const app = express();
  app.all('/x', (_req, res) => sendJson(res, 201, { name: 'Zoë 🐾' }));

  it('when a value is sent, then it is UTF-8 JSON with its exact byte length and the status', async () => {
    const res = await request(app).get('/x');
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify({ name: 'Zoë 🐾' })));
    expect(res.body).toEqual({ name: 'Zoë 🐾' });
  });

  it('when the request is HEAD, then the headers come without a body', async () => {
    const res = await request(app).head('/x');
    expect(res.status).toBe(201);
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify({ name: 'Zoë 🐾' }))));
    expect(res.text ?? '').toBe('');
  });
});
