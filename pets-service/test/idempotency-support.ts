import { Client } from 'pg';
import request from 'supertest';
import { signInternalToken } from '../../shared/src/internal-token';
import type { DatabaseSettings } from '../src/config';
import { openDatabase, prepare } from '../src/db/sqlite/keep-alive';
import { SECRET, startTestService, type Engine, type TestPetsService } from './support';

/**
 * What the tests of creates with an Idempotency-Key (pets-service/test/idempotent-create-*.test.ts)
 * share: the service with a connection of the test's own to its records, creates sent byte for
 * byte, and keys no other test of the file uses.
 */

export const REX = '{"name":"Rex","categoryId":3,"status":"pending"}';

let keys = 0;
/** A key no other test of this file uses. */
export const freshKey = () => `key-${Date.now()}-${(keys += 1)}`;

/** The Authorization header of a gateway request on behalf of `account`. */
export const tokenFor = (account: string) => `Bearer ${signInternalToken(SECRET, { issuer: 'gateway', subject: account })}`;

/** The service's store, reached with a connection of the test's own: what an operator (or a crash) does behind its back. */
export interface RecordStore {
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

async function openRecordStore(database: DatabaseSettings): Promise<RecordStore> {
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

/**
 * The service on `engine` and its record store, started before the enclosing describe's first test
 * and closed after its last; with `eachTest`, a new one around each test (for tests that count or
 * sweep every record). Call at the top level of a describe.
 */
export function useServiceWithRecords(engine: Engine, { eachTest = false } = {}) {
  let pets: TestPetsService | undefined;
  let store: RecordStore | undefined;
  (eachTest ? beforeEach : beforeAll)(async () => {
    pets = await startTestService({ engine });
    store = await openRecordStore(pets.direct);
  });
  (eachTest ? afterEach : afterAll)(async () => {
    await store?.close();
    await pets?.close();
  });

  const service = (): TestPetsService => {
    if (!pets) throw new Error('the service starts before the first test');
    return pets;
  };

  return {
    get pets(): TestPetsService {
      return service();
    },
    get store(): RecordStore {
      if (!store) throw new Error('the record store opens before the first test');
      return store;
    },
    /** A create with these exact body bytes and, unless undefined, this Idempotency-Key; as the gateway's `account-1` unless `auth` says otherwise. */
    post(body: string, key: string | undefined, auth = service().auth): request.Test {
      const req = request(service().app).post('/pets').set('Authorization', auth).set('Content-Type', 'application/json').set('X-Forwarded-Prefix', '/v1');
      if (key !== undefined) req.set('Idempotency-Key', key);
      return req.serialize((bytes: Buffer) => bytes as unknown as string).send(Buffer.from(body, 'utf8'));
    },
  };
}
