import jwt from 'jsonwebtoken';
import request from 'supertest';
import { SECRET, describeEachEngine, gatewayToken, serviceToken, startTestService, type TestPetsService } from './support';

let pets: TestPetsService;

const now = () => Math.floor(Date.now() / 1000);
const claims = (extra: Record<string, unknown> = {}) => ({ iss: 'gateway', sub: 'account-1', aud: 'pets-service', iat: now(), exp: now() + 60, ...extra });
function claimsWithout(name: 'exp' | 'iat' | 'sub'): Record<string, unknown> {
  const { [name]: _dropped, ...rest } = claims();
  return rest;
}
const unsigned = (payload: object) =>
  `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.`;

describeEachEngine('internal-token authentication', (engine) => {
  beforeAll(async () => {
    pets = await startTestService({ engine });
  });
  afterAll(() => pets.close());

  it.each<[string, string | undefined]>([
    ['there is no Authorization header', undefined],
    ['the scheme is Basic', `Basic ${Buffer.from('gateway:secret').toString('base64')}`],
    ['the token is missing after Bearer', 'Bearer '],
    ['the token is garbage', 'Bearer not-a-token'],
    ['the token is signed with another secret', `Bearer ${gatewayToken('another-secret-that-is-long-enough')}`],
    ['the audience is another service', `Bearer ${jwt.sign(claims({ aud: 'billing' }), SECRET, { algorithm: 'HS256' })}`],
    ['the token has expired', `Bearer ${jwt.sign(claims({ iat: now() - 120, exp: now() - 60 }), SECRET, { algorithm: 'HS256' })}`],
    ['the token is alg none', `Bearer ${unsigned(claims())}`],
    ['the token is signed with HS512', `Bearer ${jwt.sign(claims(), SECRET, { algorithm: 'HS512' })}`],
    ['the lifetime is over 5 minutes', `Bearer ${jwt.sign(claims({ exp: now() + 301 }), SECRET, { algorithm: 'HS256' })}`],
    ['exp is missing', `Bearer ${jwt.sign(claimsWithout('exp'), SECRET, { algorithm: 'HS256' })}`],
    ['iat is missing', `Bearer ${jwt.sign(claimsWithout('iat'), SECRET, { algorithm: 'HS256', noTimestamp: true })}`],
    ['the issuer is unknown', `Bearer ${jwt.sign(claims({ iss: 'someone' }), SECRET, { algorithm: 'HS256' })}`],
    ['the subject is missing', `Bearer ${jwt.sign(claimsWithout('sub'), SECRET, { algorithm: 'HS256' })}`],
    ['the token comes twice', `Bearer ${gatewayToken()} ${gatewayToken()}`],
  ])('when %s, then 401 unauthorized with WWW-Authenticate: Bearer', async (_case, authorization) => {
    const req = request(pets.app).get('/pets');
    if (authorization !== undefined) req.set('Authorization', authorization);
    const res = await req;
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.body).toEqual({ code: 'unauthorized', status: 401, message: expect.any(String) });
  });

  it('when the token comes in the query string, then it is not accepted', async () => {
    const res = await request(pets.app).get(`/pets?access_token=${gatewayToken()}`);
    expect(res.status).toBe(401);
  });

  it('when a gateway token is sent, then the request is served', async () => {
    expect((await request(pets.app).get('/pets').set('Authorization', `Bearer ${gatewayToken()}`)).status).toBe(200);
  });

  it('when a service:NAME token is sent, then the request is served', async () => {
    expect((await request(pets.app).get('/pets').set('Authorization', `Bearer ${serviceToken('reporting')}`)).status).toBe(200);
  });

  it('when the scheme name is in another case, then it is still Bearer', async () => {
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
      expect((await request(pets.app).get('/pets').set('Authorization', `${scheme} ${gatewayToken()}`)).status).toBe(200);
    }
  });

  it('when unauthenticated, then unknown paths and wrong methods answer 401 too, revealing nothing', async () => {
    expect((await request(pets.app).get('/nothing')).status).toBe(401);
    expect((await request(pets.app).delete('/pets')).status).toBe(401);
    expect((await request(pets.app).post('/pets').send({ name: 'Rex', categoryId: 1 })).status).toBe(401);
  });
});
