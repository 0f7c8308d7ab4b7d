import express from 'express';
import request from 'supertest';
import { interfaceDescriptionFor } from '../../../shared/src/openapi';
import { stageApp } from '../../test/support/stage-app';
import { serveInterfaceDescription } from './interface-description';

const document = interfaceDescriptionFor('https://api.example.com');
// Mounted on its path, as app.ts does.
const onItsPath = express.Router().all('/openapi.json', serveInterfaceDescription(document));
const app = stageApp(onItsPath);

describe('the serveInterfaceDescription stage', () => {
  it("when it is fetched, then it answers this deployment's document as JSON", async () => {
    const res = await request(app).get('/v1/openapi.json').expect(200).expect('Content-Type', 'application/json; charset=utf-8');
    expect(res.body).toEqual(JSON.parse(JSON.stringify(document)));
    expect((res.body as typeof document).servers[0]).toEqual(expect.objectContaining({ url: 'https://api.example.com' }));
  });

  it('when HEAD asks for it, then the same head with no body', async () => {
    const get = await request(app).get('/v1/openapi.json');
    const head = await request(app).head('/v1/openapi.json').expect(200);
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.text).toBeUndefined();
  });

  it.each(['post', 'put', 'delete'] as const)('when %s is sent to it, then 405 with Allow: GET, HEAD', async (method) => {
    const res = await request(app)[method]('/v1/openapi.json').expect(405);
    expect(res.body).toEqual({ code: 'method_not_allowed', status: 405, message: `${method.toUpperCase()} is not allowed on /v1/openapi.json; use GET, HEAD.` });
    expect(res.headers.allow).toBe('GET, HEAD');
  });

  it('when the request is for another path, then it goes on', async () => {
    await request(app).get('/v1/pets').expect(200);
  });
});
