import { Client } from 'pg';
import type request from 'supertest';
import { ADVISORY_LOCKS } from '../src/db/postgres/advisory-locks';
import { REX, freshKey, useServiceWithRecords } from './idempotency-support';
import { describeEachEngine, testEngines } from './support';

/** Requests with one key at the same time: one pet, and the others wait for its answer or are told 409. */

describeEachEngine('POST /pets with one Idempotency-Key at once', (engine) => {
  const fixture = useServiceWithRecords(engine);
  const { post } = fixture;

  it('when many requests with one key arrive at once, then exactly one pet is created, and each answer is it or 409', async () => {
    const key = freshKey();
    const before = await fixture.pets.countPets();
    const answers = await Promise.all(Array.from({ length: 12 }, () => post(REX, key)));
    expect(await fixture.pets.countPets()).toBe(before + 1);
    const created = answers.filter((a) => a.status === 201);
    expect(created.filter((a) => a.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(new Set(created.map((a) => a.text)).size).toBe(1);
    for (const other of answers.filter((a) => a.status !== 201)) expect(other.body.code).toBe('idempotency_key_in_use');
    // On SQLite the check and the create are one synchronous transaction: nothing is ever seen in flight.
    if (engine === 'sqlite') expect(created).toHaveLength(12);
  });
});

// PostgreSQL only: SQLite answers a create within one synchronous transaction, so no request ever
// finds a key in flight there (the concurrent test above shows the outcome: every answer a 201).
(testEngines().includes('postgres') ? describe : describe.skip)('a key whose first request is still being answered, on postgres', () => {
  const fixture = useServiceWithRecords('postgres');
  const { post } = fixture;
  let side: Client | undefined;
  beforeAll(async () => {
    if (fixture.pets.direct.engine !== 'postgres') throw new Error('a PostgreSQL test');
    side = new Client({ connectionString: fixture.pets.direct.url });
    await side.connect();
  });
  afterAll(async () => {
    await side?.end();
  });

  it('when another request holds the key, then 409 idempotency_key_in_use at once, and its answer once it is done', async () => {
    const key = freshKey();
    const before = await fixture.pets.countPets();
    // Hold the id-order lock every create takes: the first request stops inside its transaction, holding its key.
    await side!.query('SELECT pg_advisory_lock($1, $2)', [...ADVISORY_LOCKS.idOrder]);
    let first: Promise<request.Response> | undefined;
    try {
      first = post(REX, key).then((answer) => answer);
      await waitForLockWaiter(side!);
      const started = Date.now();
      const busy = await post(REX, key);
      expect(busy.status).toBe(409);
      expect(busy.body).toEqual({ code: 'idempotency_key_in_use', status: 409, message: expect.stringContaining('still being answered') });
      expect(busy.headers['retry-after']).toBe('1');
      // At once, not after the first request (it holds its lock until the test lets it go).
      expect(Date.now() - started).toBeLessThan(5_000);
      // Even with another body: the first request's answer is not known yet.
      expect((await post('{"name":"Max","categoryId":1}', key)).status).toBe(409);
    } finally {
      await side!.query('SELECT pg_advisory_unlock($1, $2)', [...ADVISORY_LOCKS.idOrder]);
    }
    const done = await first;
    expect(done.status).toBe(201);
    const replay = await post(REX, key);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(done.text);
    expect(await fixture.pets.countPets()).toBe(before + 1);
  });
});

async function waitForLockWaiter(client: Client): Promise<void> {
  for (let tries = 0; tries < 200; tries += 1) {
    const { rows } = await client.query<{ n: string }>("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
    if (Number(rows[0]?.n) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no create waited for the lock');
}
