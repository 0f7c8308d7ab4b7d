import type Database from 'better-sqlite3';
import request from 'supertest';
import { BUSY_TIMEOUT_MS } from '../src/db/sqlite/database';
import { openDatabase } from '../src/db/sqlite/keep-alive';
import { startTestService, type TestPetsService } from './support';

let pets: TestPetsService;
let otherConnection: Database.Database;

beforeAll(async () => {
  pets = await startTestService({ engine: 'sqlite' });
  await pets.seed([{ name: 'Rex', categoryId: 1 }]);
  if (pets.database.engine !== 'sqlite') throw new Error('a SQLite test');
  otherConnection = openDatabase(pets.database.file);
});
afterAll(async () => {
  otherConnection.close();
  await pets.close();
});

const create = () => request(pets.app).post('/pets').set('Authorization', pets.auth).send({ name: 'Bella', categoryId: 1 });

// SQLite's own lock; PostgreSQL's busy, unreachable and saturated cases are in database-unavailable.test.ts.
describe('another connection holding the SQLite write lock', () => {
  it('when a write waits past the busy timeout, then 503 service_unavailable; once released, writes succeed', async () => {
    otherConnection.exec('BEGIN IMMEDIATE');
    try {
      const started = Date.now();
      const refused = await create();
      expect(refused.status).toBe(503);
      expect(refused.body).toEqual({ code: 'service_unavailable', status: 503, message: expect.any(String) });
      expect(refused.headers['retry-after']).toBe('1');
      // The wait blocks the event loop, so it must stay short.
      expect(Date.now() - started).toBeLessThan(BUSY_TIMEOUT_MS + 1_000);

      // WAL: readers are not blocked by the writer.
      const read = await request(pets.app).get('/pets').set('Authorization', pets.auth);
      expect(read.status).toBe(200);
      expect(read.body).toHaveLength(1);
    } finally {
      otherConnection.exec('ROLLBACK');
    }
    const accepted = await create();
    expect(accepted.status).toBe(201);
  });
});
