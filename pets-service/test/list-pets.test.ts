import request from 'supertest';
import { PAGE_SIZE } from '../../shared/src/openapi';
import { createCursorCodec } from '../src/http/cursor';
import { SECRET, describeEachEngine, somePets, startTestService, type TestPetsService } from './support';

let pets: TestPetsService;

const list = (query: string) => request(pets.app).get(`/pets${query}`).set('Authorization', pets.auth);

async function expectInvalidParameter(query: string, parameter: string): Promise<void> {
  const res = await list(query);
  expect({ query, status: res.status, code: res.body.code }).toEqual({ query, status: 400, code: 'invalid_parameter' });
  expect(res.body.status).toBe(400);
  expect(res.body.message).toContain(parameter);
}

describeEachEngine('GET /pets', (engine) => {
  beforeAll(async () => {
    pets = await startTestService({ engine });
    await pets.seed(somePets(30));
  });
  afterAll(() => pets.close());

  describe('GET /pets', () => {
    it('when no parameter is given, then the first default-sized page comes sorted by id ascending', async () => {
      const res = await list('');
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(PAGE_SIZE.default);
      const ids = (res.body as { id: number }[]).map((pet) => pet.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(ids[0]).toBe(1);
      expect(res.body[0]).toEqual({ id: 1, name: 'pet-1', categoryId: 1, status: 'available' });
    });

    it('when a status is given, then only pets with that status come back', async () => {
      const res = await list('?status=sold&limit=100');
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(10);
      expect(new Set((res.body as { status: string }[]).map((pet) => pet.status))).toEqual(new Set(['sold']));
    });

    it('when limit is at its bounds, then that many pets come back', async () => {
      expect((await list(`?limit=${PAGE_SIZE.minimum}`)).body).toHaveLength(PAGE_SIZE.minimum);
      expect((await list(`?limit=${PAGE_SIZE.maximum}`)).body).toHaveLength(30);
    });

    it.each([
      ['?limit=', 'limit'],
      ['?limit', 'limit'],
      ['?limit=1&limit=2', 'limit'],
      ['?limit=abc', 'limit'],
      ['?limit=1.5', 'limit'],
      ['?limit=0', 'limit'],
      ['?limit=-1', 'limit'],
      [`?limit=${PAGE_SIZE.maximum + 1}`, 'limit'],
      ['?limit=99999999999999999999999', 'limit'],
      ['?limit=+5', 'limit'],
      ['?limit=%2B5', 'limit'],
      ['?limit=%205', 'limit'],
      ['?limit=05', 'limit'],
      ['?limit=1e1', 'limit'],
      ['?status=', 'status'],
      ['?status=lost', 'status'],
      ['?status=SOLD', 'status'],
      ['?status=sold&status=pending', 'status'],
      ['?cursor=', 'cursor'],
      ['?cursor=garbage', 'cursor'],
      ['?cursor=MQ.AAAAAAAAAAAAAAAAAAAAAA', 'cursor'],
      ['?staus=sold', 'staus'],
      ['?offset=10', 'offset'],
    ])('when the query is %s, then 400 invalid_parameter names %s', async (query, parameter) => {
      await expectInvalidParameter(query, parameter);
    });

    it('when the cursor is longer than the interface allows, then it is refused', async () => {
      await expectInvalidParameter(`?cursor=${'x'.repeat(201)}`, 'cursor');
    });

    it('when a cursor is tampered with, then it is refused', async () => {
      const next = linkOf((await list('?limit=2')).headers.link);
      const cursor = new URL(next!, 'http://relative.invalid').searchParams.get('cursor')!;
      const [payload, tag] = cursor.split('.') as [string, string];
      const otherId = Buffer.from('7').toString('base64url');
      const flipped = `${tag.slice(0, -1)}${tag.endsWith('A') ? 'B' : 'A'}`;
      await expectInvalidParameter(`?cursor=${otherId}.${tag}`, 'cursor');
      await expectInvalidParameter(`?cursor=${payload}.${flipped}`, 'cursor');
      await expectInvalidParameter(`?cursor=${createCursorCodec('another-secret-of-enough-length').encode(2)}`, 'cursor');
    });

    it('when the cursor is one the service issued, then the page starts after it', async () => {
      const res = await list(`?limit=3&cursor=${createCursorCodec(SECRET).encode(10)}`);
      expect((res.body as { id: number }[]).map((pet) => pet.id)).toEqual([11, 12, 13]);
    });
  });

  describe('Link to the next page', () => {
    it('when called through the gateway without PUBLIC_BASE_URL, then the link is relative, with the /v1 prefix', async () => {
      const res = await list('?limit=2').set('X-Forwarded-Prefix', '/v1');
      expect(res.headers.link).toMatch(/^<\/v1\/pets\?limit=2&cursor=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+>; rel="next"$/);
    });

    it('when called directly, then the link is relative without a prefix', async () => {
      const res = await list('?limit=2&status=pending').set('Host', 'pets.internal:8082');
      expect(res.headers.link).toMatch(/^<\/pets\?limit=2&status=pending&cursor=[^>]+>; rel="next"$/);
    });

    it('when the client chose no limit, then the link does not add one', async () => {
      const next = linkOf((await list('')).headers.link);
      expect(next).toMatch(/^\/pets\?cursor=/);
    });

    it('when the last page is served, then no Link is sent', async () => {
      expect((await list('?limit=30')).headers.link).toBeUndefined();
      expect((await list('?limit=100')).headers.link).toBeUndefined();
      const last = await list(`?limit=5&cursor=${createCursorCodec(SECRET).encode(25)}`);
      expect(last.body).toHaveLength(5);
      expect(last.headers.link).toBeUndefined();
    });

    it.each([
      ['X-Forwarded-Prefix', '/v1>; rel="x"'],
      ['X-Forwarded-Prefix', '//evil.example'],
      ['X-Forwarded-Prefix', '/v1/../admin'],
      ['X-Forwarded-Prefix', '/v1?x=1'],
      ['X-Forwarded-Prefix', 'v1'],
    ])('when %s is %j, then it is ignored and cannot inject into the link', async (header, value) => {
      const res = await list('?limit=2').set(header, value);
      expect(res.status).toBe(200);
      expect(res.headers.link).toMatch(/^<\/pets\?limit=2&cursor=[A-Za-z0-9_.-]+>; rel="next"$/);
    });

    it.each([
      ['Host', 'evil.example'],
      ['X-Forwarded-Host', 'evil.example'],
      ['X-Forwarded-Host', 'evil.example>; rel="next", <https://evil.example'],
      ['Forwarded', 'host=evil.example;proto=https'],
      ['X-Forwarded-Proto', 'https'],
    ])('when %s is %j, then the link never names a host the request chose', async (header, value) => {
      const res = await list('?limit=2').set('X-Forwarded-Prefix', '/v1').set(header, value);
      expect(res.status).toBe(200);
      expect(res.headers.link).toMatch(/^<\/v1\/pets\?limit=2&cursor=[A-Za-z0-9_.-]+>; rel="next"$/);
    });
  });

  describe('Link to the next page with PUBLIC_BASE_URL', () => {
    let configured: TestPetsService;
    beforeAll(async () => {
      configured = await startTestService({ engine, publicBaseUrl: 'https://api.animalstore.example/v1' });
      await configured.seed(somePets(5));
    });
    afterAll(() => configured.close());

    it('when called through the gateway, then the link is absolute on PUBLIC_BASE_URL whatever the Host says', async () => {
      const res = await request(configured.app)
        .get('/pets?limit=2')
        .set('Authorization', configured.auth)
        .set('X-Forwarded-Prefix', '/v1')
        .set('Host', 'evil.example')
        .set('X-Forwarded-Host', 'evil.example');
      expect(res.headers.link).toMatch(/^<https:\/\/api\.animalstore\.example\/v1\/pets\?limit=2&cursor=[A-Za-z0-9_.-]+>; rel="next"$/);
    });

    it('when an internal service calls directly, then the link stays relative to the service', async () => {
      const res = await request(configured.app).get('/pets?limit=2').set('Authorization', configured.auth);
      expect(res.headers.link).toMatch(/^<\/pets\?limit=2&cursor=/);
    });
  });
});

function linkOf(header: string | undefined): string | undefined {
  return header ? /^<([^>]+)>; rel="next"$/.exec(header)?.[1] : undefined;
}
