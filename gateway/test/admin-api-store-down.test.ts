import express from 'express';
import request from 'supertest';
import { RedisAccountStore } from '../src/accounts/redis-account-store';
import { createAdminApp } from '../src/admin/app';
import { ADMIN_TOKEN, adminLogger, expectError } from './support/admin-api';
import { opsParts } from './support/ops';
import { useRedis } from './support/redis';
import { SHARED_TOKEN_ACTOR } from '../src/admin/tokens';

/** The admin API when its account store is down: a real redis-server, stopped mid-test. */

describe('admin API over a Redis store that is down', () => {
  const redis = useRedis();
  let store: RedisAccountStore;

  beforeAll(async () => {
    store = redis.closeAfter(await RedisAccountStore.connect(redis.url));
  });

  it('when Redis is unreachable, then 503 service_unavailable with Retry-After, quickly', async () => {
    const { service, reports } = opsParts({ store });
    const app = express().use(createAdminApp({ service, reports, adminTokens: [{ name: SHARED_TOKEN_ACTOR, token: ADMIN_TOKEN }], logger: adminLogger }));
    const created = await request(app).post('/admin/accounts').set('Authorization', `Bearer ${ADMIN_TOKEN}`).send({ name: 'A', plan: 'free' });
    expect(created.status).toBe(201);
    await redis.server.stop();
    const started = Date.now();
    const res = await request(app).get(`/admin/accounts/${created.body.id}`).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    expectError(res, 503, 'service_unavailable');
    expect(res.headers['retry-after']).toBe('1');
    // Not held until Redis is back (it is not, in this test): any bound far below the test's own.
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
