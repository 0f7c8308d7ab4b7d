import request from 'supertest';
import { describeEachEngine, startTestService, type TestPetsService } from './support';

let pets: TestPetsService;

describeEachEngine('methods and paths', (engine) => {
  beforeAll(async () => {
    pets = await startTestService({ engine });
  });
  afterAll(() => pets.close());

  it.each([
    ['PUT', '/pets', 'GET, POST'],
    ['DELETE', '/pets', 'GET, POST'],
    ['PATCH', '/pets', 'GET, POST'],
    ['POST', '/pets/1', 'GET'],
    ['PUT', '/pets/1', 'GET'],
    ['DELETE', '/pets/abc', 'GET'],
  ])('when %s %s is asked, then 405 method_not_allowed with Allow: %s', async (method, path, allow) => {
    const res = await request(pets.app)[method.toLowerCase() as 'put'](path).set('Authorization', pets.auth);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe(allow);
    expect(res.body).toEqual({ code: 'method_not_allowed', status: 405, message: expect.any(String) });
  });

  it('when HEAD /pets is asked, then it is answered like GET without a body', async () => {
    const res = await request(pets.app).head('/pets').set('Authorization', pets.auth);
    expect(res.status).toBe(200);
    expect(res.text).toBeUndefined();
  });

  it.each(['/', '/nothing', '/pets/1/owner', '/v1/pets', '/store/orders'])(
    'when the unknown path %s is asked, then 404 not_found',
    async (path) => {
      const res = await request(pets.app).get(path).set('Authorization', pets.auth);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'not_found', status: 404, message: expect.any(String) });
    },
  );

  it('when /healthz is asked without a token, then 200 {"status":"ok"}', async () => {
    const res = await request(pets.app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('when any answer is sent, then it carries X-Request-Id and no X-Powered-By', async () => {
    const res = await request(pets.app).get('/pets').set('Authorization', pets.auth).set('X-Request-Id', 'abc-123');
    expect(res.headers['x-request-id']).toBe('abc-123');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });
});
