import request from 'supertest';
import { createLogger } from '../../shared/src/logger';
import { RETENTION_MS } from '../src/idempotency/records';
import { startRecordSweeper } from '../src/idempotency/sweeper';
import { REX, freshKey, useServiceWithRecords } from './idempotency-support';
import { describeEachEngine, openSideConnection, type SideConnection } from './support';

/** Records last 24 hours: an older key creates again, and the sweeper (on another replica's connection) removes them. */

const silent = createLogger('idempotency-test', 'silent');

describeEachEngine('POST /pets with an Idempotency-Key 24 hours later', (engine) => {
  const fixture = useServiceWithRecords(engine);
  const { post } = fixture;

  it('when the first request is more than 24 hours old, then its key creates a new pet, and is remembered from then on', async () => {
    const key = freshKey();
    const first = await post(REX, key);
    await fixture.store.age(RETENTION_MS + 1);
    const later = await post('{"name":"Max","categoryId":3}', key);
    expect(later.status).toBe(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.body.id).not.toBe(first.body.id);
    expect((await post('{"name":"Max","categoryId":3}', key)).body).toEqual(later.body);
    expect((await post(REX, key)).status).toBe(422);
  });
});

describeEachEngine('expired idempotency records', (engine) => {
  const fixture = useServiceWithRecords(engine, { eachTest: true });
  const { post } = fixture;
  let side: SideConnection;
  beforeEach(() => {
    side = openSideConnection(fixture.pets.direct);
  });
  afterEach(async () => {
    await side?.close();
  });

  it('when the sweeper runs, then it removes the records older than 24 hours and keeps the others', async () => {
    await post(REX, freshKey());
    await post(REX, freshKey());
    await fixture.store.age(RETENTION_MS + 1);
    const live = freshKey();
    await post(REX, live);
    const sweeper = startRecordSweeper(side.repository, { logger: silent, everyMs: 3_600_000, firstAfterMs: 3_600_000, batchSize: 1 });
    try {
      expect(await sweeper.sweep()).toBe(2);
    } finally {
      await sweeper.stop();
    }
    expect(await fixture.store.countRecords()).toBe(1);
    expect((await post(REX, live)).headers['idempotent-replayed']).toBe('true');
  });

  it('when thousands have expired, then they go in small batches and requests are answered meanwhile', async () => {
    await fixture.store.seedExpired(10_000);
    let batches = 0;
    const counting = { removeExpiredRecords: (limit: number) => ((batches += 1), side.repository.removeExpiredRecords(limit)) };
    const sweeper = startRecordSweeper(counting, { logger: silent, everyMs: 3_600_000, firstAfterMs: 3_600_000, batchSize: 100 });
    let sweptAt = 0;
    let answeredAt = 0;
    try {
      const swept = sweeper.sweep().then((removed) => ((sweptAt = performance.now()), removed));
      const answered = request(fixture.pets.app).get('/pets?limit=1').set('Authorization', fixture.pets.auth).then((answer) => ((answeredAt = performance.now()), answer.status));
      expect(await answered).toBe(200);
      expect(await swept).toBe(10_000);
    } finally {
      await sweeper.stop();
    }
    expect(batches).toBeGreaterThanOrEqual(100);
    expect(answeredAt).toBeLessThan(sweptAt);
    expect(await fixture.store.countRecords()).toBe(0);
  });
});
