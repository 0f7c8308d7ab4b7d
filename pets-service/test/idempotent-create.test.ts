import { Client, Pool } from 'pg';
import request from 'supertest';
import { signInternalToken } from '../../shared/src/internal-token';
import type { DatabaseSettings } from '../src/config';
import { ADVISORY_LOCKS } from '../src/db/postgres/advisory-locks';
import { openDatabase, prepare } from '../src/db/sqlite/keep-alive';
import { createLogger } from '../../shared/src/logger';
import { RETENTION_MS } from '../src/idempotency/records';
import { startRecordSweeper } from '../src/idempotency/sweeper';
import type { PetRepository } from '../src/pets/pet-repository';
import { createPostgresPetRepository } from '../src/pets/postgres-pet-repository';
import { createSqlitePetRepository } from '../src/pets/sqlite-pet-repository';
import { SECRET, describeEachEngine, serviceToken, startTestService, testEngines, type TestPetsService } from './support';

let pets: TestPetsService;
const silent = createLogger('idempotency-test', 'silent');

const tokenFor = (account: string) => `Bearer ${signInternalToken(SECRET, { issuer: 'gateway', subject: account })}`;

/** A create with these exact body bytes and, unless undefined, this Idempotency-Key. */
function post(body: string, key: string | undefined, auth = pets.auth) {
  const req = request(pets.app).post('/pets').set('Authorization', auth).set('Content-Type', 'application/json').set('X-Forwarded-Prefix', '/v1');
  if (key !== undefined) req.set('Idempotency-Key', key);
  return req.serialize((bytes: Buffer) => bytes as unknown as string).send(Buffer.from(body, 'utf8'));
}

const REX = '{"name":"Rex","categoryId":3,"status":"pending"}';
let keys = 0;
/** A key no other test of this file uses. */
const freshKey = () => `key-${Date.now()}-${(keys += 1)}`;

/** The service's store, reached with a connection of the test's own: what an operator (or a crash) does behind its back. */
interface Store {
  run(sql: string): Promise<void>;
  countRecords(): Promise<number>;
  /** Makes every record `ms` older. */
  age(ms: number): Promise<void>;
  /** Adds `count` records of another owner, all past their 24 hours. */
  seedExpired(count: number): Promise<void>;
  /** Makes the next write of a record fail inside its transaction, until `allowRecords`. */
  refuseRecords(): Promise<void>;
  allowRecords(): Promise<void>;
  close(): Promise<void>;
}

async function openStore(database: DatabaseSettings): Promise<Store> {
  if (database.engine === 'sqlite') {
    const db = openDatabase(database.file);
    const run = async (sql: string) => {
      db.exec(sql);
    };
    return {
      run,
      countRecords: async () => (prepare(db, 'SELECT count(*) AS n FROM idempotency_records').get() as { n: number }).n,
      age: (ms) => run(`UPDATE idempotency_records SET created_at = created_at - ${ms}`),
      seedExpired: (count) =>
        run(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
             INSERT INTO idempotency_records SELECT 'seeded', 'old-' || i, 'f', 0, 201, '{}', '/v1/pets/1' FROM n`),
      refuseRecords: () => run("CREATE TRIGGER refuse_records BEFORE INSERT ON idempotency_records BEGIN SELECT RAISE(ABORT, 'records refused'); END"),
      allowRecords: () => run('DROP TRIGGER refuse_records'),
      close: async () => {
        db.close();
      },
    };
  }
  const client = new Client({ connectionString: database.url });
  await client.connect();
  const run = async (sql: string) => void (await client.query(sql));
  return {
    run,
    countRecords: async () => Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM idempotency_records')).rows[0]?.n),
    age: (ms) => run(`UPDATE idempotency_records SET created_at = created_at - ${ms} * interval '1 millisecond'`),
    seedExpired: (count) =>
      run(`INSERT INTO idempotency_records (owner, idempotency_key, fingerprint, created_at, response_status, response_body, response_location)
           SELECT 'seeded', 'old-' || i, 'f', now() - interval '25 hours', 201, '{}', '/v1/pets/1' FROM generate_series(1, ${count}) AS i`),
    refuseRecords: () =>
      run(`CREATE FUNCTION refuse_records() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'records refused'; END $$;
           CREATE TRIGGER refuse_records BEFORE INSERT ON idempotency_records FOR EACH ROW EXECUTE FUNCTION refuse_records()`),
    allowRecords: () => run('DROP TRIGGER refuse_records ON idempotency_records; DROP FUNCTION refuse_records()'),
    close: () => client.end(),
  };
}

/** A repository of its own on the service's store: what another replica's sweeper would use. */
async function openSideRepository(database: DatabaseSettings): Promise<{ repository: PetRepository; close(): Promise<void> }> {
  if (database.engine === 'sqlite') {
    const db = openDatabase(database.file);
    return {
      repository: createSqlitePetRepository(db),
      close: async () => {
        db.close();
      },
    };
  }
  const pool = new Pool({ connectionString: database.url, max: 2 });
  return { repository: createPostgresPetRepository(pool), close: () => pool.end() };
}

describeEachEngine('POST /pets with an Idempotency-Key', (engine) => {
  let store: Store;
  beforeAll(async () => {
    pets = await startTestService({ engine });
    store = await openStore(pets.direct);
  });
  afterAll(async () => {
    await store?.close();
    await pets?.close();
  });

  it('when a key is sent the first time, then the pet is created as without one, and the answer says nothing of a replay', async () => {
    const before = await pets.countPets();
    const first = await post(REX, freshKey());
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 3, status: 'pending' });
    expect(first.headers.location).toBe(`/v1/pets/${first.body.id}`);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(await pets.countPets()).toBe(before + 1);
  });

  it('when the same key comes again with the same body, then the first answer comes back byte for byte, marked replayed, and nothing is created', async () => {
    const key = freshKey();
    const first = await post(REX, key);
    const before = await pets.countPets();
    const again = await post(REX, key);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await pets.countPets()).toBe(before);
  });

  it('when the same JSON value is spelt otherwise (member order, white space, escapes, 3.0 for 3), then it is the same body: a replay', async () => {
    const key = freshKey();
    const first = await post(REX, key);
    const respelt = await post('{ "status" : "pending",\n  "categoryId": 3.0, "name": "\\u0052ex" }', key);
    expect(respelt.status).toBe(201);
    expect(respelt.headers['idempotent-replayed']).toBe('true');
    expect(respelt.body).toEqual(first.body);
  });

  it.each([
    ['another name', '{"name":"Max","categoryId":3,"status":"available"}'],
    ['a field left to its default that was given before', '{"name":"Rex","categoryId":3}'],
  ])('when the same key comes with another body (%s), then 422 idempotency_key_reused and nothing is created', async (_case, other) => {
    const key = freshKey();
    expect((await post('{"name":"Rex","categoryId":3,"status":"available"}', key)).status).toBe(201);
    const before = await pets.countPets();
    const reused = await post(other, key);
    expect(reused.status).toBe(422);
    expect(reused.body).toEqual({ code: 'idempotency_key_reused', status: 422, message: expect.stringContaining('another body') });
    expect(reused.headers['idempotent-replayed']).toBeUndefined();
    expect(await pets.countPets()).toBe(before);
  });

  it('when two accounts use the same key, then each gets its own pet: keys belong to the account', async () => {
    const key = freshKey();
    const mine = await post(REX, key, tokenFor('account-a'));
    const theirs = await post(REX, key, tokenFor('account-b'));
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect((await post(REX, key, tokenFor('account-a'))).body).toEqual(mine.body);
  });

  it('when an internal service uses a key an account used, then it has a namespace of its own', async () => {
    const key = freshKey();
    const account = await post(REX, key, tokenFor('reports'));
    const service = await post(REX, key, `Bearer ${serviceToken('reports')}`);
    expect(service.status).toBe(201);
    expect(service.body.id).not.toBe(account.body.id);
    expect(service.headers['idempotent-replayed']).toBeUndefined();
    expect((await post(REX, key, `Bearer ${serviceToken('reports')}`)).headers['idempotent-replayed']).toBe('true');
  });

  it.each([
    ['empty', '', 'is empty'],
    ['256 characters long', 'k'.repeat(256), 'has 256 characters'],
    ['holding a space', 'two words', 'holds a space'],
    ['holding a tab', 'tab\there', 'holds a space'],
    ['holding a character outside ASCII', 'clé', 'holds .* outside ASCII'],
  ])('when the key is %s, then 400 invalid_parameter naming the header, and nothing is created or stored', async (_case, key, problem) => {
    const [pets0, records0] = [await pets.countPets(), await store.countRecords()];
    const refused = await post(REX, key);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ code: 'invalid_parameter', status: 400, message: expect.stringMatching(new RegExp(`^Idempotency-Key ${problem}.*1 to 255 visible ASCII`)) });
    expect([await pets.countPets(), await store.countRecords()]).toEqual([pets0, records0]);
  });

  it('when the key has 255 visible ASCII characters, punctuation included, then it is accepted', async () => {
    const key = `${'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'}${'x'.repeat(255 - 32)}`;
    expect(key).toHaveLength(255);
    expect((await post(REX, key)).status).toBe(201);
    expect((await post(REX, key)).headers['idempotent-replayed']).toBe('true');
  });

  it('when the body is refused (400), then nothing is stored, and the same key then creates with a valid body', async () => {
    const key = freshKey();
    const records = await store.countRecords();
    expect((await post('{"name":"","categoryId":3}', key)).status).toBe(400);
    expect((await post('{"name":"Rex"', key)).status).toBe(400);
    expect(await store.countRecords()).toBe(records);
    const created = await post(REX, key);
    expect(created.status).toBe(201);
    expect(created.headers['idempotent-replayed']).toBeUndefined();
  });

  it('when the record cannot be written, then the pet is not kept either: one transaction', async () => {
    const [pets0, records0] = [await pets.countPets(), await store.countRecords()];
    await store.refuseRecords();
    try {
      const failed = await post(REX, freshKey());
      expect(failed.status).toBe(500);
      expect(failed.body.code).toBe('internal_error');
    } finally {
      await store.allowRecords();
    }
    expect([await pets.countPets(), await store.countRecords()]).toEqual([pets0, records0]);
  });

  it('when the first request is more than 24 hours old, then its key creates a new pet, and is remembered from then on', async () => {
    const key = freshKey();
    const first = await post(REX, key);
    await store.age(RETENTION_MS + 1);
    const later = await post('{"name":"Max","categoryId":3}', key);
    expect(later.status).toBe(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.body.id).not.toBe(first.body.id);
    expect((await post('{"name":"Max","categoryId":3}', key)).body).toEqual(later.body);
    expect((await post(REX, key)).status).toBe(422);
  });

  it('when many requests with one key arrive at once, then exactly one pet is created, and each answer is it or 409', async () => {
    const key = freshKey();
    const before = await pets.countPets();
    const answers = await Promise.all(Array.from({ length: 12 }, () => post(REX, key)));
    expect(await pets.countPets()).toBe(before + 1);
    const created = answers.filter((a) => a.status === 201);
    expect(created.filter((a) => a.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(new Set(created.map((a) => a.text)).size).toBe(1);
    for (const other of answers.filter((a) => a.status !== 201)) expect(other.body.code).toBe('idempotency_key_in_use');
    // On SQLite the check and the create are one synchronous transaction: nothing is ever seen in flight.
    if (engine === 'sqlite') expect(created).toHaveLength(12);
  });

  it('when a list is asked with an Idempotency-Key, then the header is ignored', async () => {
    const listed = await request(pets.app).get('/pets').set('Authorization', pets.auth).set('Idempotency-Key', 'not for reads, even if malformed');
    expect(listed.status).toBe(200);
  });
});

describeEachEngine('expired idempotency records', (engine) => {
  let store: Store;
  let side: { repository: PetRepository; close(): Promise<void> };
  beforeEach(async () => {
    pets = await startTestService({ engine });
    store = await openStore(pets.direct);
    side = await openSideRepository(pets.direct);
  });
  afterEach(async () => {
    await side?.close();
    await store?.close();
    await pets?.close();
  });

  it('when the sweeper runs, then it removes the records older than 24 hours and keeps the others', async () => {
    await post(REX, freshKey());
    await post(REX, freshKey());
    await store.age(RETENTION_MS + 1);
    const live = freshKey();
    await post(REX, live);
    const sweeper = startRecordSweeper(side.repository, { logger: silent, everyMs: 3_600_000, firstAfterMs: 3_600_000, batchSize: 1 });
    try {
      expect(await sweeper.sweep()).toBe(2);
    } finally {
      await sweeper.stop();
    }
    expect(await store.countRecords()).toBe(1);
    expect((await post(REX, live)).headers['idempotent-replayed']).toBe('true');
  });

  it('when thousands have expired, then they go in small batches and requests are answered meanwhile', async () => {
    await store.seedExpired(10_000);
    let batches = 0;
    const counting = { removeExpiredRecords: (limit: number) => ((batches += 1), side.repository.removeExpiredRecords(limit)) };
    const sweeper = startRecordSweeper(counting, { logger: silent, everyMs: 3_600_000, firstAfterMs: 3_600_000, batchSize: 100 });
    let sweptAt = 0;
    let answeredAt = 0;
    try {
      const swept = sweeper.sweep().then((removed) => ((sweptAt = performance.now()), removed));
      const answered = request(pets.app).get('/pets?limit=1').set('Authorization', pets.auth).then((answer) => ((answeredAt = performance.now()), answer.status));
      expect(await answered).toBe(200);
      expect(await swept).toBe(10_000);
    } finally {
      await sweeper.stop();
    }
    expect(batches).toBeGreaterThanOrEqual(100);
    expect(answeredAt).toBeLessThan(sweptAt);
    expect(await store.countRecords()).toBe(0);
  });
});

// PostgreSQL only: SQLite answers a create within one synchronous transaction, so no request ever
// finds a key in flight there (the concurrent test above shows the outcome: every answer a 201).
(testEngines().includes('postgres') ? describe : describe.skip)('a key whose first request is still being answered, on postgres', () => {
  let side: Client | undefined;
  beforeAll(async () => {
    pets = await startTestService({ engine: 'postgres' });
    if (pets.direct.engine !== 'postgres') throw new Error('a PostgreSQL test');
    side = new Client({ connectionString: pets.direct.url });
    await side.connect();
  });
  afterAll(async () => {
    await side?.end();
    await pets?.close();
  });

  it('when another request holds the key, then 409 idempotency_key_in_use at once, and its answer once it is done', async () => {
    const key = freshKey();
    const before = await pets.countPets();
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
      expect(Date.now() - started).toBeLessThan(1_000);
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
    expect(await pets.countPets()).toBe(before + 1);
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
