import type { Redis } from '../src/redis';
import { MemoryAuditLog, type AuditLog, type NewAuditEntry } from '../src/audit/audit-log';
import { RedisAuditLog } from '../src/audit/redis-audit-log';
import { SeparatedAuditLog } from '../src/audit/separated-audit-log';
import { useRedis, useRedisCluster } from './support/redis';

const redis = useRedis();
let client: Redis;

beforeAll(async () => {
  client = await redis.connection();
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
  await redis.server.flushAll();
  return new RedisAuditLog({ redis: client, key: (name) => `gw:${name}`, listBudget: 4 });
});

describe('on a Redis Cluster', () => {
  const cluster = useRedisCluster();
  auditLogContract('RedisAuditLog on Redis Cluster', async () => new RedisAuditLog({ redis: await cluster.emptyConnection(), key: (name) => `{gw}:${name}`, listBudget: 4 }));
});

// The same contract with operators' and the portal's entries mixed: actors alternate between the two streams.
// Entries of the two streams are ordered to the millisecond (each stream numbers its own within one),
// so the entries here are made in different milliseconds.
function alternating(log: AuditLog): AuditLog {
  let n = 0;
  return {
    list: (query) => log.list(query),
    record: async (e) => {
      await new Promise((resolve) => setTimeout(resolve, 3));
      await log.record(n++ % 2 === 0 ? e : { ...e, actor: `portal:${e.actor}` });
    },
  };
}
function withoutActors(log: AuditLog): AuditLog {
  return { record: (e) => log.record(e), list: async (query) => { const page = await log.list(query); return { ...page, entries: page.entries.map((e) => ({ ...e, actor: e.actor.replace(/^portal:/, '') })) }; } };
}
auditLogContract('SeparatedAuditLog (in process)', async () => withoutActors(alternating(new SeparatedAuditLog(new MemoryAuditLog(), new MemoryAuditLog()))));
auditLogContract('SeparatedAuditLog (Redis)', async () => {
  await redis.server.flushAll();
  const stream = (name: string) => new RedisAuditLog({ redis: client, key: (n) => `gw:${n}`, stream: name, listBudget: 4 });
  return withoutActors(alternating(new SeparatedAuditLog(stream('audit'), stream('audit:portal'))));
});

describe('SeparatedAuditLog specifics (issue 17: one portal account flushed the trail)', () => {
  it("when a portal account floods the trail, then it pushes out only older portal entries, never an operator's change", async () => {
    const log = new SeparatedAuditLog(new MemoryAuditLog(100), new MemoryAuditLog(5));
    await log.record(entry(1, { actor: 'alice' }));
    await log.record(entry(2, { actor: 'system', action: 'plan.updated', target: 'free', accountId: null }));
    for (let n = 3; n < 203; n++) await log.record(entry(n, { actor: `portal:${OTHER}`, action: n % 2 ? 'key.created' : 'key.revoked', target: OTHER, accountId: OTHER }));
    const all = (await log.list({ limit: 100 })).entries;
    expect(all.filter((e) => e.actor.startsWith('portal:'))).toHaveLength(5);
    expect(all.filter((e) => !e.actor.startsWith('portal:')).map((e) => e.actor)).toEqual(['system', 'alice']);
  });

  it('when both streams number entries alike (same millisecond), then the merged trail still has unique ids and pages through every entry once', async () => {
    const log = new SeparatedAuditLog(new MemoryAuditLog(100, () => 1_000), new MemoryAuditLog(100, () => 1_000));
    for (let n = 1; n <= 6; n++) await log.record(entry(n, { actor: n % 3 === 0 ? 'alice' : `portal:${ACME}` }));
    const seen: string[] = [];
    let before: string | undefined;
    for (;;) {
      const page = await log.list({ limit: 1, ...(before ? { before } : {}) });
      seen.push(...page.entries.map((e) => e.id));
      if (!page.next) break;
      before = page.next;
    }
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
  });

  it('when on Redis, then the two streams are separate keys, the portal one capped on its own', async () => {
    await redis.reset();
    const log = new SeparatedAuditLog(new RedisAuditLog({ redis: client, key: (n) => `{gw}:${n}` }), new RedisAuditLog({ redis: client, key: (n) => `{gw}:${n}`, stream: 'audit:portal', maxEntries: 10 }));
    await log.record(entry(1, { actor: 'alice' }));
    for (let n = 2; n < 400; n++) await log.record(entry(n, { actor: `portal:${ACME}` }));
    expect((await client.keys('{gw}:audit*')).sort()).toEqual(['{gw}:audit', '{gw}:audit:portal']);
    const operators = (await log.list({ limit: 100, accountId: ACME })).entries.filter((e) => e.actor === 'alice');
    expect(operators).toHaveLength(1);
  });
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
  beforeEach(() => redis.reset());

  it('when entries are recorded, then they go to one capped stream under the store\'s prefix, trimmed near the cap', async () => {
    const log = new RedisAuditLog({ redis: client, key: (name) => `{gw}:${name}`, maxEntries: 10 });
    for (let n = 0; n < 250; n++) await log.record(entry(n));
    expect(await client.keys('*')).toEqual(['{gw}:audit']);
    const length = await client.xlen('{gw}:audit');
    // MAXLEN ~ trims whole stream nodes (100 entries each by default): cheap, approximately the cap.
    expect(length).toBeGreaterThanOrEqual(10);
    expect(length).toBeLessThanOrEqual(110);
  });

  it('when a stream entry was written by someone else with unreadable values, then the page still reads, with nulls', async () => {
    await client.xadd('gw:audit', '*', 'at', 'x', 'actor', 'mallory', 'action', 'account.updated', 'target', ACME, 'accountId', ACME, 'before', '{oops', 'after', '[1]');
    const { entries } = await new RedisAuditLog({ redis: client, key: (name) => `gw:${name}` }).list({ limit: 5 });
    expect(entries).toEqual([expect.objectContaining({ actor: 'mallory', before: null, after: null })]);
  });

  it('when Redis is down, then recording and listing fail fast as StoreUnavailableError', async () => {
    const log = new RedisAuditLog({ redis: client, key: (name) => `gw:${name}` });
    await redis.server.stop();
    const started = Date.now();
    await expect(log.record(entry(1))).rejects.toMatchObject({ name: 'StoreUnavailableError' });
    await expect(log.list({ limit: 5 })).rejects.toMatchObject({ name: 'StoreUnavailableError' });
    expect(Date.now() - started).toBeLessThan(5_000); // not held until the test ends (far from it on any machine)
    await redis.server.start();
  });
});
