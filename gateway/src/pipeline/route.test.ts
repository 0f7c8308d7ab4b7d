import request from 'supertest';
import { stageApp } from '../../test/support/stage-app';
import { route } from './route';

const app = stageApp(route);

describe('the route stage', () => {
  it.each([
    ['GET', '/v1/pets'],
    ['HEAD', '/v1/pets'],
    ['POST', '/v1/pets'],
    ['GET', '/v1/pets/42'],
  ])('when %s %s is an operation of the document, then it goes on with its place in the route table', async (method, path) => {
    const res = await request(app)[method === 'HEAD' ? 'head' : (method.toLowerCase() as 'get' | 'post')](path).expect(200);
    if (method !== 'HEAD') expect(res.body).toEqual({ route: 'path' });
  });

  it('when the path is not in the document, then 404 names the method and the path as the client wrote them', async () => {
    const res = await request(app).get('/v1/pets/1/toys').expect(404);
    expect(res.body).toEqual({ code: 'not_found', status: 404, message: 'No operation at GET /v1/pets/1/toys.' });
  });

  it.each([
    ['delete', '/v1/pets', 'GET, HEAD, POST'],
    ['post', '/v1/pets/7', 'GET, HEAD'],
  ] as const)('when the path does not offer the method (%s %s), then 405 with Allow', async (method, path, allow) => {
    const res = await request(app)[method](path).expect(405);
    expect(res.body).toEqual({ code: 'method_not_allowed', status: 405, message: `${method.toUpperCase()} is not allowed on ${path}; use ${allow}.` });
    expect(res.headers.allow).toBe(allow);
  });

  it.each([
    ['get', '/v1/store/orders'],
    ['put', '/v1/store/orders'],
    ['get', '/v1/store/inventory/anything'],
  ] as const)('when the path is under the store section (%s %s), then 501 whatever the method', async (method, path) => {
    const res = await request(app)[method](path).expect(501);
    expect(res.body).toEqual({ code: 'not_implemented', status: 501, message: 'The store operations are not implemented yet.' });
  });

  it.each([
    ['/v1/pets/a%2Fb', 'The path must not contain an encoded slash or backslash (%2F, %5C).'],
    ['/v1/pets/%2e%2e', 'The path must not contain "." or ".." segments.'],
  ])('when the path is unacceptable (%s), then 400 invalid_parameter says why', async (path, message) => {
    const res = await request(app).get(path).expect(400);
    expect(res.body).toEqual({ code: 'invalid_parameter', status: 400, message });
  });

  it.each(['Idempotency-Key', 'keep-alive, idempotency-key', 'x-one,IDEMPOTENCY-KEY'])(
    'when Connection names Idempotency-Key (%s), then 400 invalid_parameter naming the header and why, since it would be stripped as hop-by-hop',
    async (connection) => {
      const res = await request(app).post('/v1/pets').set('Connection', connection).set('Idempotency-Key', 'k-1').expect(400);
      expect(res.body).toMatchObject({ code: 'invalid_parameter', status: 400 });
      expect(res.body.message).toMatch(/Connection names Idempotency-Key/);
      expect(res.body.message).toMatch(/hop-by-hop/);
      expect(res.body.message).toMatch(/not be idempotent/);
    },
  );

  it('when Connection names other headers only, then the request goes on', async () => {
    await request(app).post('/v1/pets').set('Connection', 'keep-alive, x-idempotency-key-not').set('Idempotency-Key', 'k-1').expect(200);
  });
});
