import path from 'node:path';
import { Client } from 'pg';
import { ADVISORY_LOCKS } from '../../pets-service/src/db/postgres/advisory-locks';
import { openDatabase, prepare } from '../../pets-service/src/db/sqlite/keep-alive';
import { signInternalToken } from '../../shared/src/internal-token';
import { startPetsReplicas, type PetsReplicas } from '../helpers/pets-replicas';
import { waitFor } from '../helpers/ports';
import { createTestDatabase, describeIfPostgres, type TestDatabase } from '../helpers/postgres';
import { TEST_SECRET, admin, createAccountWithKey, startSystem, type SystemHandle } from '../helpers/system';
import { burst, call, expectError, rateLimitOf, statusCounts, type Reply } from '../helpers/traffic';

/** `Idempotency-Key` through the real gateway and pets-service processes (CONTRACT "Idempotent creates"). */

let keys = 0;
const freshKey = () => `e2e-${process.pid}-${Date.now()}-${(keys += 1)}`;
const create = (base: string, apiKey: string, idempotencyKey: string, body: unknown = { name: 'Rex', categoryId: 1 }) =>
  call(`${base}/v1/pets`, { key: apiKey, method: 'POST', body, headers: { 'Idempotency-Key': idempotencyKey } });

/** Every answer of a burst with one key: the first answer, or 409 while it was in flight; never two pets. */
function expectOneCreate(replies: Reply[]): Reply {
  const created = replies.filter((r) => r.status === 201);
  for (const other of replies.filter((r) => r.status !== 201)) expectError(other, 409, 'idempotency_key_in_use');
  expect(created.filter((r) => r.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
  expect(new Set(created.map((r) => r.text)).size).toBe(1);
  return created.find((r) => r.headers['idempotent-replayed'] === undefined)!;
}

describe('Idempotency-Key through the gateway, on the embedded defaults (SQLite)', () => {
  let system: SystemHandle;
  let base: string;
  let apiKey: string;
  let records: (...keys: string[]) => number;
  let petsNamed: (name: string) => number;

  beforeAll(async () => {
    system = await startSystem();
    base = system.gateways[0]!.url;
    ({ key: apiKey } = await createAccountWithKey(system.gateways[0]!.adminUrl, { plan: 'business' }));
    const db = openDatabase(path.join(system.dataDir, 'pets.db'), { readonly: true });
    records = (...keys) => (prepare(db, `SELECT count(*) AS n FROM idempotency_records WHERE idempotency_key IN (${keys.map(() => '?').join(',')})`).get(...keys) as { n: number }).n;
    petsNamed = (name) => (prepare(db, 'SELECT count(*) AS n FROM pets WHERE name = ?').get(name) as { n: number }).n;
  });
  afterAll(() => system?.stop());

  it('when a create is sent twice with one key, then the second answer is the first (Location, body) with Idempotent-Replayed: true and the rate-limit headers', async () => {
    const key = freshKey();
    const first = await create(base, apiKey, key);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await create(base, apiKey, key);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(`/v1/pets/${first.json!.id}`);
    expect(again.text).toBe(first.text);
    expect(rateLimitOf(again).remaining).toBe(rateLimitOf(first).remaining - 1);
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
  });

  it('when the key comes with another body, then 422 idempotency_key_reused; a malformed key, 400 invalid_parameter naming it', async () => {
    const key = freshKey();
    expect((await create(base, apiKey, key)).status).toBe(201);
    expectError(await create(base, apiKey, key, { name: 'Max', categoryId: 1 }), 422, 'idempotency_key_reused');
    const malformed = await create(base, apiKey, 'with space');
    expectError(malformed, 400, 'invalid_parameter');
    expect(malformed.json!.message).toMatch(/^Idempotency-Key /);
  });

  it('when a request is refused before the pets-service (401, 429) or for its body (400), then nothing is stored for its key', async () => {
    const [unauthorized, limited, invalid] = [freshKey(), freshKey(), freshKey()];
    expectError(await create(base, 'ask_live_not-a-key', unauthorized), 401, 'unauthorized');

    // Two a minute (one would ban at the first refusal: BAN_THRESHOLD defaults to the per-minute quota).
    const small = await createAccountWithKey(system.gateways[0]!.adminUrl, { plan: 'enterprise', perMinute: 2, perDay: 100 });
    for (let i = 0; i < 2; i++) expect((await call(`${base}/v1/pets?limit=1`, { key: small.key })).status).toBe(200);
    expectError(await create(base, small.key, limited), 429, 'rate_limited');

    expectError(await create(base, apiKey, invalid, { name: '', categoryId: 1 }), 400, 'invalid_body');
    expect(records(unauthorized, limited, invalid)).toBe(0);
    // The refused request left the key free: it creates now.
    const later = await create(base, apiKey, invalid);
    expect(later.status).toBe(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(records(invalid)).toBe(1);
  });

  it('when twenty requests with one key arrive at once, then one pet is created and every answer is it (SQLite sees no key in flight)', async () => {
    const key = freshKey();
    const name = `burst-${key}`;
    const replies = await burst(20, () => create(base, apiKey, key, { name, categoryId: 1 }));
    expect(statusCounts(replies)).toEqual({ 201: 20 });
    expectOneCreate(replies);
    expect(petsNamed(name)).toBe(1);
  });
});

describeIfPostgres()('Idempotency-Key across two gateways and two pets-service replicas on one PostgreSQL', () => {
  let database: TestDatabase;
  let pets: PetsReplicas;
  let system: SystemHandle;
  let side: Client;
  let accountId: string;
  let apiKey: string;
  const gateway = (i: number) => system.gateways[i % 2]!.url;
  const petsNamed = async (name: string) => Number((await side.query<{ n: string }>('SELECT count(*) AS n FROM pets WHERE name = $1', [name])).rows[0]?.n);
  /** A create sent to one pets-service replica directly, with the token the gateway would mint for this account. */
  const atReplica = (replica: number, key: string, body: unknown = { name: 'Rex', categoryId: 1 }) =>
    call(`${pets.replicas[replica]!.url}/pets`, {
      method: 'POST',
      body,
      headers: { authorization: `Bearer ${signInternalToken(TEST_SECRET, { issuer: 'gateway', subject: accountId })}`, 'Idempotency-Key': key, 'X-Forwarded-Prefix': '/v1' },
    });

  beforeAll(async () => {
    database = await createTestDatabase('idempotency');
    pets = await startPetsReplicas({ databaseUrl: database.url, count: 2 });
    system = await startSystem({ redis: true, replicas: 2, petsUrl: pets.petsUrl });
    ({ accountId, key: apiKey } = await createAccountWithKey(system.gateways[0]!.adminUrl, { plan: 'business' }));
    side = new Client({ connectionString: database.url });
    await side.connect();
  }, 60_000);
  afterAll(async () => {
    await side?.end();
    await system?.stop();
    await pets?.stop();
    await database?.drop();
  }, 30_000);

  it('when a create through one gateway is sent again through the other, and to each replica, then every repeat is the first answer', async () => {
    const key = freshKey();
    const name = `replicas-${key}`;
    const first = await create(gateway(0), apiKey, key, { name, categoryId: 1 });
    expect(first.status).toBe(201);
    for (const again of [await create(gateway(1), apiKey, key, { name, categoryId: 1 }), await atReplica(0, key, { name, categoryId: 1 }), await atReplica(1, key, { name, categoryId: 1 })]) {
      expect({ status: again.status, replayed: again.headers['idempotent-replayed'], location: again.headers.location, body: again.text }).toEqual({
        status: 201,
        replayed: 'true',
        location: first.headers.location,
        body: first.text,
      });
    }
    expectError(await atReplica(1, key, { name: 'Max', categoryId: 1 }), 422, 'idempotency_key_reused');
    expect(await petsNamed(name)).toBe(1);
  });

  it('when the first request holds its key on one replica, then the same key gets 409 from every replica and gateway at once, and the first answer once it is done', async () => {
    const key = freshKey();
    const name = `in-flight-${key}`;
    await side.query('SELECT pg_advisory_lock($1, $2)', [...ADVISORY_LOCKS.idOrder]);
    let first: Promise<Reply> | undefined;
    try {
      first = create(gateway(0), apiKey, key, { name, categoryId: 1 });
      await waitFor(async () => Number((await side.query<{ n: string }>("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).rows[0]?.n) > 0, 10_000, 'the first create inside its transaction');
      const busy = [await atReplica(0, key, { name, categoryId: 1 }), await atReplica(1, key, { name, categoryId: 1 }), ...(await burst(4, (i) => create(gateway(i), apiKey, key, { name, categoryId: 1 })))];
      for (const reply of busy) {
        expectError(reply, 409, 'idempotency_key_in_use');
        expect(reply.headers['retry-after']).toBe('1');
      }
    } finally {
      await side.query('SELECT pg_advisory_unlock($1, $2)', [...ADVISORY_LOCKS.idOrder]);
    }
    const done = await first!;
    expect(done.status).toBe(201);
    const replay = await create(gateway(1), apiKey, key, { name, categoryId: 1 });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(done.text);
    expect(await petsNamed(name)).toBe(1);
  });

  it('when twenty requests with one key arrive at once through both gateways, then one pet is made and each answer is it or 409', async () => {
    const key = freshKey();
    const name = `burst-${key}`;
    const replies = await burst(20, (i) => create(gateway(i), apiKey, key, { name, categoryId: 1 }));
    expectOneCreate(replies);
    expect(await petsNamed(name)).toBe(1);
  });

  it('when two accounts send the same key, then each has its own pet', async () => {
    const key = freshKey();
    const other = await createAccountWithKey(system.gateways[1]!.adminUrl, { plan: 'business' });
    const [mine, theirs] = [await create(gateway(0), apiKey, key), await create(gateway(1), other.key, key)];
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.json!.id).not.toBe(mine.json!.id);
    expect((await admin(system.gateways[0]!.adminUrl, 'GET', `/admin/accounts/${other.accountId}`)).status).toBe(200);
  });
});
