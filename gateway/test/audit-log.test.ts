import { connectRedis, type Redis } from '../src/redis';
import { MemoryAuditLog, type AuditLog, type NewAuditEntry } from '../src/audit/audit-log';
import { RedisAuditLog } from '../src/audit/redis-audit-log';
import { TestRedis } from '../../test/helpers/redis-server';

let redis: TestRedis;
let client: Redis;

beforeAll(async () => {
  redis = await TestRedis.start();
  client = await connectRedis(redis.url);
});

afterAll(async () => {
  client.disconnect();
  await redis.stop();
});

const ACME = 'acct_AAAAAAAAAAAAAAAAAAAA';
const OTHER = 'acct_BBBBBBBBBBBBBBBBBBBB';

function entry(n: number, overrides: Partial<NewAuditEntry> = {}): NewAuditEntry {
  return {
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    actor: 'alice',
    action: 'account.updated',
    target: ACME,
    accountId: ACME,
    before: { perDay: n },
    after: { perDay: n + 1 },
    ...overrides,
  };
}

/** The behaviour both audit logs share. */
function auditLogContract(name: string, open: () => Promise<AuditLog>) {
  describe(`${name} (audit log contract)`, () => {
    let log: AuditLog;
    beforeEach(async () => {
      log = await open();
    });

    it('when nothing was recorded, then the page is empty', async () => {
      expect(await log.list({ limit: 10 })).toEqual({ entries: [], next: null });
    });

    it('when entries are recorded, then they read back newest first, values intact, each with an id', async () => {
      await log.record(entry(1, { before: null, after: { name: 'Zoë 🐾', plan: 'pro', perMinute: null, email: null }, action: 'account.created' }));
      await log.record(entry(2, { actor: 'bob', action: 'plan.updated', target: 'free', accountId: null }));
      const { entries, next } = await log.list({ limit: 10 });
      expect(next).toBeNull();
      expect(entries.map(({ id: _id, ...rest }) => rest)).toEqual([
        entry(2, { actor: 'bob', action: 'plan.updated', target: 'free', accountId: null }),
        entry(1, { before: null, after: { name: 'Zoë 🐾', plan: 'pro', perMinute: null, email: null }, action: 'account.created' }),
      ]);
      expect(entries[0]!.id).toMatch(/^\d+-\d+$/);
      expect(entries[0]!.id).not.toBe(entries[1]!.id);
    });

    it('when the trail is paged, then every entry comes once, newest first, with a next only while older ones remain', async () => {
      for (let n = 1; n <= 7; n++) await log.record(entry(n));
      const seen: number[] = [];
      let before: string | undefined;
      let pages = 0;
      for (;;) {
        const page = await log.list({ limit: 3, ...(before ? { before } : {}) });
        pages++;
        seen.push(...page.entries.map((e) => e.before!.perDay as number));
        if (!page.next) break;
        before = page.next;
      }
      expect(seen).toEqual([7, 6, 5, 4, 3, 2, 1]);
      expect(pages).toBe(3);
    });

    it('when filtered by account, then only that account\'s entries come, paged the same way', async () => {
      for (let n = 1; n <= 9; n++) await log.record(entry(n, n % 3 === 0 ? { target: OTHER, accountId: OTHER } : {}));
      const first = await log.list({ limit: 2, accountId: OTHER });
      expect(first.entries.map((e) => e.before!.perDay)).toEqual([9, 6]);
      const second = await log.list({ limit: 2, accountId: OTHER, before: first.next! });
      expect(second).toEqual({ entries: [expect.objectContaining({ before: { perDay: 3 } })], next: null });
    });
  });
}

auditLogContract('MemoryAuditLog', async () => new MemoryAuditLog());

auditLogContract('RedisAuditLog', async () => {
  await redis.flushAll();
  return new RedisAuditLog({ redis: client, key: (name) => `gw:${name}`, listBudget: 4 });
});

describe('MemoryAuditLog specifics', () => {
  it('when more entries are recorded than are kept, then the oldest go', async () => {
    const log = new MemoryAuditLog(3);
    for (let n = 1; n <= 5; n++) await log.record(entry(n));
    expect((await log.list({ limit: 10 })).entries.map((e) => e.before!.perDay)).toEqual([5, 4, 3]);
  });

  it('when several entries are recorded in one millisecond, then their ids still order them', async () => {
    const log = new MemoryAuditLog(100, () => 1_000);
    for (let n = 1; n <= 3; n++) await log.record(entry(n));
    expect((await log.list({ limit: 10 })).entries.map((e) => e.id)).toEqual(['1000-2', '1000-1', '1000-0']);
  });
});

describe('RedisAuditLog specifics', () => {
  beforeEach(async () => {
    await redis.start();
    await redis.flushAll();
  });

  it('when entries are recorded, then they go to one capped stream under the store\'s prefix, trimmed near the cap', async () => {
    const log = new RedisAuditLog({ redis: client, key: (name) => `{gw}:${name}`, maxEntries: 10 });
    for (let n = 0; n < 250; n++) await log.record(entry(n));
    expect(await redis.command('KEYS', '*')).toContain('{gw}:audit');
    const length = Number(/:(\d+)/.exec(await redis.command('XLEN', '{gw}:audit'))![1]);
    // MAXLEN ~ trims whole stream nodes (100 entries each by default): cheap, approximately the cap.
    expect(length).toBeGreaterThanOrEqual(10);
    expect(length).toBeLessThanOrEqual(110);
  });

  it('when a stream entry was written by someone else with unreadable values, then the page still reads, with nulls', async () => {
    await redis.command('XADD', 'gw:audit', '*', 'at', 'x', 'actor', 'mallory', 'action', 'account.updated', 'target', ACME, 'accountId', ACME, 'before', '{oops', 'after', '[1]');
    const { entries } = await new RedisAuditLog({ redis: client, key: (name) => `gw:${name}` }).list({ limit: 5 });
    expect(entries).toEqual([expect.objectContaining({ actor: 'mallory', before: null, after: null })]);
  });

  it('when Redis is down, then recording and listing fail fast as StoreUnavailableError', async () => {
    const log = new RedisAuditLog({ redis: client, key: (name) => `gw:${name}` });
    await redis.stop();
    const started = Date.now();
    await expect(log.record(entry(1))).rejects.toMatchObject({ name: 'StoreUnavailableError' });
    await expect(log.list({ limit: 5 })).rejects.toMatchObject({ name: 'StoreUnavailableError' });
    expect(Date.now() - started).toBeLessThan(2_500);
    await redis.start();
  });
});
