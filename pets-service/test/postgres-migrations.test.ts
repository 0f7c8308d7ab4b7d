import { Writable } from 'node:stream';
import pino from 'pino';
import { Client } from 'pg';
import { createLogger } from '../../shared/src/logger';
import { describeIfPostgres } from '../../test/helpers/postgres';
import { POSTGRES_DEFAULTS, type PostgresSettings } from '../src/config';
import { openPostgresDatabase } from '../src/db/postgres/database';
import { POSTGRES_MIGRATIONS, migratePostgres } from '../src/db/postgres/migrations';
import { createPostgresPetRepository } from '../src/pets/postgres-pet-repository';
import { freshSchemaUrl } from './support';

const latest = POSTGRES_MIGRATIONS.at(-1)!.version;
const silent = createLogger('test', 'silent');
const settingsFor = (url: string): PostgresSettings => ({ engine: 'postgres', url, ...POSTGRES_DEFAULTS, poolSize: 2 });

async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const appliedVersions = (url: string) =>
  withClient(url, async (client) => (await client.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).rows.map((row) => row.version));

const tablesOf = (url: string) =>
  withClient(url, async (client) =>
    (await client.query<{ name: string }>('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1')).rows.map((row) => row.name),
  );

describeIfPostgres()('schema migrations on PostgreSQL', () => {
  let url: string;
  beforeEach(async () => {
    url = await freshSchemaUrl();
  });

  it('when the schema is empty, then every migration runs once and is recorded in schema_migrations', async () => {
    const { pool, migration } = await openPostgresDatabase(settingsFor(url), silent);
    await pool.end();
    expect(migration).toEqual({ from: 0, to: latest, applied: POSTGRES_MIGRATIONS.length });
    expect(await appliedVersions(url)).toEqual(POSTGRES_MIGRATIONS.map((m) => m.version));
    expect(await tablesOf(url)).toEqual(['idempotency_records', 'pets', 'schema_migrations']);
  });

  it('when an existing schema is opened again, then its data stays and no migration runs again', async () => {
    const first = await openPostgresDatabase(settingsFor(url), silent);
    await createPostgresPetRepository(first.pool).insert({ name: 'Rex', categoryId: 1, status: 'sold' });
    await first.pool.end();

    const second = await openPostgresDatabase(settingsFor(url), silent);
    expect(second.migration).toEqual({ from: latest, to: latest, applied: 0 });
    expect(await createPostgresPetRepository(second.pool).findById(1)).toEqual({ id: 1, name: 'Rex', categoryId: 1, status: 'sold' });
    await second.pool.end();
  });

  it('when a schema of version 1 (before idempotency records) is opened, then it gains the records table and keeps its pets', async () => {
    await withClient(url, async (client) => {
      await migratePostgres(client, POSTGRES_MIGRATIONS.slice(0, 1));
      await createPostgresPetRepository(client).insert({ name: 'Rex', categoryId: 1, status: 'sold' });
    });

    const { pool, migration } = await openPostgresDatabase(settingsFor(url), silent);
    try {
      expect(migration).toEqual({ from: 1, to: latest, applied: latest - 1 });
      const pets = createPostgresPetRepository(pool);
      expect(await pets.findById(1)).toEqual({ id: 1, name: 'Rex', categoryId: 1, status: 'sold' });
      const create = { owner: 'gateway acct', key: 'k', fingerprint: 'f', answerFor: () => ({ status: 201, body: '{}', location: '/pets/2' }) };
      expect(await pets.insertOnce({ name: 'Max', categoryId: 1, status: 'sold' }, create)).toEqual({ outcome: 'created', answer: { status: 201, body: '{}', location: '/pets/2' } });
    } finally {
      await pool.end();
    }
  });

  it('when several replicas start at the same moment on a fresh database, then all succeed and the schema is applied once', async () => {
    const replicas = 6;
    const opened = await Promise.all(Array.from({ length: replicas }, () => openPostgresDatabase(settingsFor(url), silent)));
    await Promise.all(opened.map(({ pool }) => pool.end()));
    const applied = opened.map(({ migration }) => migration.applied).sort();
    expect(applied).toEqual([...Array<number>(replicas - 1).fill(0), POSTGRES_MIGRATIONS.length]);
    expect(await appliedVersions(url)).toEqual(POSTGRES_MIGRATIONS.map((m) => m.version));
  });

  it('when a migration fails, then the whole run is rolled back: no table, no recorded version', async () => {
    const broken = [...POSTGRES_MIGRATIONS, { version: latest + 1, sql: 'CREATE TABLE extra (x integer); THIS IS NOT SQL;' }];
    await expect(withClient(url, (client) => migratePostgres(client, broken))).rejects.toThrow(/syntax error/);
    expect(await tablesOf(url)).toEqual([]);
  });

  it('when the schema comes from a newer build, then opening it is refused and nothing is touched', async () => {
    await (await openPostgresDatabase(settingsFor(url), silent)).pool.end();
    await withClient(url, (client) => client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [latest + 1]));
    await expect(openPostgresDatabase(settingsFor(url), silent)).rejects.toThrow(/newer than this build/);
    expect(await appliedVersions(url)).toEqual([...POSTGRES_MIGRATIONS.map((m) => m.version), latest + 1]);
  });

  it('when a status page is queried, then the (status, id) index serves it without a sort', async () => {
    await (await openPostgresDatabase(settingsFor(url), silent)).pool.end();
    const plan = await withClient(url, async (client) => {
      // An empty table would be scanned whole whatever the indexes; the question is whether the index can serve.
      await client.query('SET enable_seqscan = off');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(
        "EXPLAIN SELECT id, name, category_id, status FROM pets WHERE status = 'sold' AND id > 5 ORDER BY id LIMIT 21",
      );
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    expect(plan).toMatch(/Index (Only )?Scan using pets_status_id/);
    expect(plan).not.toMatch(/Sort/);
  });

  it('when the server would acknowledge commits it has not flushed, then the start-up warns about it', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString()), done()) }));
    const unflushed = new URL(url);
    unflushed.searchParams.set('options', `${unflushed.searchParams.get('options')} -c synchronous_commit=off`);
    await (await openPostgresDatabase(settingsFor(unflushed.toString()), logger)).pool.end();
    expect(lines.join('')).toMatch(/"synchronous_commit":"off".*acknowledges commits it has not flushed/);

    lines.length = 0;
    await (await openPostgresDatabase(settingsFor(url), logger)).pool.end();
    expect(lines).toEqual([]);
  });
});
