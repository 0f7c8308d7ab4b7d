import request from 'supertest';
import pino from 'pino';
import { createLogger } from '../../shared/src/logger';
import { AccountService } from '../src/admin/account-service';
import { createAdminApp } from '../src/admin/app';
import { OpsReports } from '../src/admin/reports';
import { MemoryAccountStore } from '../src/accounts/memory-account-store';
import { RedisAccountStore } from '../src/accounts/redis-account-store';
import type { AccountStore } from '../src/accounts/types';
import { MemoryAuditLog, type AuditLog } from '../src/audit/audit-log';
import { RedisAuditLog } from '../src/audit/redis-audit-log';
import { createLimiter } from '../src/limits';
import { MemoryLimiter } from '../src/limits/memory-limiter';
import type { Limiter } from '../src/limits/types';
import { KeyUseRecorder } from '../src/usage/key-use';
import { RedisUsageBoard } from '../src/usage/redis-usage-board';
import { LocalUsageBoard, type UsageBoard } from '../src/usage/usage-board';
import { useRedis } from './support/redis';

/**
 * The operations endpoints (CONTRACT "Operations") on both stacks the gateway runs on: everything
 * in process, and everything on a real redis-server (store, limiter, usage board, audit stream).
 */

const ADMIN = 'shared-admin-token-0123456789';
const ALICE = 'alice-own-token-0123456789';
const BOB = 'bob-own-token-0123456789';
const logger = createLogger('ops-test', 'silent');

interface Stack {
  store: AccountStore;
  limiter: Limiter;
  board: UsageBoard;
  audit: AuditLog;
  keyUse: KeyUseRecorder;
  close(): Promise<void>;
}

const redis = useRedis();

const stacks: [string, () => Promise<Stack>][] = [
  [
    'in process',
    async () => {
      const store = new MemoryAccountStore();
      const keyUse = new KeyUseRecorder({ store, flushIntervalMs: 60_000 });
      return {
        store,
        limiter: new MemoryLimiter({ threshold: 3, seconds: 900 }),
        board: new LocalUsageBoard(),
        audit: new MemoryAuditLog(),
        keyUse,
        close: () => keyUse.close(),
      };
    },
  ],
  [
    'on Redis',
    async () => {
      await redis.server.flushAll();
      const client = await redis.connection(2_000);
      const store = await RedisAccountStore.connect(redis.url);
      const key = (name: string) => store.key(name);
      const limiter = createLimiter({ redis: client, logger: pino({ level: 'silent' }), ban: { threshold: 3, seconds: 900 } });
      const board = new RedisUsageBoard({ redis: client, key, flushIntervalMs: 60_000 });
      const keyUse = new KeyUseRecorder({ store, flushIntervalMs: 60_000 });
      return {
        store,
        limiter,
        board,
        audit: new RedisAuditLog({ redis: client, key }),
        keyUse,
        async close() {
          await Promise.all([board.close(), keyUse.close()]);
          await limiter.close();
          await store.close();
          await redis.closeOpened();
        },
      };
    },
  ],
];

describe.each(stacks)('operations endpoints, %s', (_name, open) => {
  let stack: Stack;
  let api: ReturnType<typeof request>;
  let lastTime = 0;
  // Strictly increasing, so creation order is the order of the calls below.
  const now = () => (lastTime = Math.max(Date.now(), lastTime + 1));
  const as = (token: string) => ({ Authorization: `Bearer ${token}` });
  const auth = as(ADMIN);

  beforeEach(async () => {
    stack = await open();
    const { store, limiter, board, audit, keyUse } = stack;
    const service = new AccountService({ store, limiter, audit, keyActivity: keyUse, logger, now });
    const app = createAdminApp({
      service,
      reports: new OpsReports({ store, board, audit }),
      adminToken: ADMIN,
      adminTokens: [
        { name: 'alice', token: ALICE },
        { name: 'bob', token: BOB },
      ],
      logger,
    });
    api = request(app);
  });

  afterEach(async () => {
    await stack.close();
  });

  async function createAccount(body: object, token = ADMIN): Promise<{ id: string; name: string }> {
    const res = await api.post('/admin/accounts').set(as(token)).send(body);
    expect(res.status).toBe(201);
    return res.body;
  }

  async function createKey(accountId: string, token = ADMIN): Promise<{ id: string; key: string }> {
    const res = await api.post(`/admin/accounts/${accountId}/keys`).set(as(token));
    expect(res.status).toBe(201);
    return res.body;
  }

  function expectInvalid(res: request.Response, parameter: string) {
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'invalid_parameter' });
    expect(res.body.message).toContain(parameter);
  }

  /** Requests of one key, decided by the limiter and observed as the rate-limit stage does. */
  async function traffic(accountId: string, keyId: string, quotas: { perMinute: number; perDay: number }, count: number) {
    const outcomes: string[] = [];
    for (let i = 0; i < count; i++) {
      const subject = { accountId, keyId, quotas };
      const decision = await stack.limiter.consumeKey(subject);
      stack.board.observe(subject, decision, Date.now());
      stack.keyUse.note(keyId, Date.now());
      outcomes.push(decision.outcome);
    }
    await stack.board.flush();
    return outcomes;
  }

  describe('GET /admin/accounts', () => {
    it('when there are more accounts than a page, then 20 come oldest first and Link gives the next page, relative', async () => {
      const created = [];
      for (let i = 1; i <= 23; i++) created.push(await createAccount({ name: `Account ${String(i).padStart(2, '0')}`, plan: 'free' }));
      const first = await api.get('/admin/accounts').set(auth);
      expect(first.status).toBe(200);
      expect(first.body.map((a: { id: string }) => a.id)).toEqual(created.slice(0, 20).map((a) => a.id));
      expect(first.body[0]).toEqual({
        id: created[0]!.id,
        name: 'Account 01',
        plan: 'free',
        perMinute: 60,
        perDay: 1_000,
        overrides: { perMinute: null, perDay: null },
        email: null,
        createdAt: expect.any(String),
      });
      const link = /^<(\/admin\/accounts\?cursor=[A-Za-z0-9_-]+)>; rel="next"$/.exec(first.headers.link ?? '');
      expect(link).not.toBeNull();
      const second = await api.get(link![1]!).set(auth);
      expect(second.body.map((a: { id: string }) => a.id)).toEqual(created.slice(20).map((a) => a.id));
      expect(second.headers.link).toBeUndefined();
    });

    it('when filtered by plan and searched, then only matches come, case-insensitively on name or email, and Link keeps the filters', async () => {
      const acme = await createAccount({ name: 'ACME Pets', plan: 'pro' });
      await createAccount({ name: 'Acme Free', plan: 'free' });
      const corp = await createAccount({ name: 'Corp', plan: 'pro' });
      await stack.store.updateAccount({ ...(await stack.store.getAccount(corp.id))!, email: 'ops@acme.example' });
      await createAccount({ name: 'Other', plan: 'pro' });

      const page = await api.get('/admin/accounts?limit=1&plan=pro&q=acme').set(auth);
      expect(page.body.map((a: { name: string }) => a.name)).toEqual(['ACME Pets']);
      const next = /^<([^>]+)>; rel="next"$/.exec(page.headers.link ?? '')![1]!;
      expect(next).toMatch(/^\/admin\/accounts\?limit=1&plan=pro&q=acme&cursor=/);
      const rest = await api.get(next).set(auth);
      expect(rest.body).toEqual([expect.objectContaining({ id: corp.id, email: 'ops@acme.example' })]);
      expect(rest.headers.link).toBeUndefined();

      expect((await api.get('/admin/accounts?q=%20ACME%20').set(auth)).body.map((a: { id: string }) => a.id)).toEqual([acme.id, expect.any(String), corp.id]);
      expect((await api.get('/admin/accounts?q=nobody').set(auth)).body).toEqual([]);
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=', 'limit'],
      ['limit=1&limit=2', 'limit'],
      ['plan=gold', 'plan'],
      ['plan=Free', 'plan'],
      ['q=%20%20', 'q'],
      [`q=${'x'.repeat(101)}`, 'q'],
      ['q=a%0Ab', 'q'],
      ['cursor=nonsense', 'cursor'],
      ['cursor=', 'cursor'],
      [`cursor=${Buffer.from('e.1-0').toString('base64url')}`, 'cursor'],
      ['sort=name', 'sort'],
    ])('when the query has %s, then 400 invalid_parameter naming %s', async (query, parameter) => {
      expectInvalid(await api.get(`/admin/accounts?${query}`).set(auth), parameter);
    });
  });

  describe('GET /admin/accounts/{id}/keys', () => {
    /** The lifecycle fields of a key created without any (see key-lifecycle.test.ts). */
    const neverRolled = { name: null, access: 'read-write', expiresAt: null, replacedBy: null };

    it('when an account has keys, then each shows id, a masked form, times and ban, and never the key or its hash', async () => {
      const account = await createAccount({ name: 'Keyed', plan: 'free' });
      const used = await createKey(account.id);
      const revoked = await createKey(account.id);
      const fresh = await createKey(account.id);
      expect((await api.delete(`/admin/keys/${revoked.id}`).set(auth)).status).toBe(204);
      const beforeUse = Date.now();
      await traffic(account.id, used.id, { perMinute: 1, perDay: 100 }, 4); // accepted, limited, limited, banned

      const res = await api.get(`/admin/accounts/${account.id}/keys`).set(auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        {
          ...neverRolled,
          id: used.id,
          masked: `ask_live_…${used.key.slice(-4)}`,
          createdAt: expect.any(String),
          revokedAt: null,
          lastUsedAt: expect.any(String),
          bannedUntil: expect.any(String),
        },
        { ...neverRolled, id: revoked.id, masked: `ask_live_…${revoked.key.slice(-4)}`, createdAt: expect.any(String), revokedAt: expect.any(String), lastUsedAt: null, bannedUntil: null },
        { ...neverRolled, id: fresh.id, masked: `ask_live_…${fresh.key.slice(-4)}`, createdAt: expect.any(String), revokedAt: null, lastUsedAt: null, bannedUntil: null },
      ]);
      expect(Date.parse(res.body[0].lastUsedAt)).toBeGreaterThanOrEqual(beforeUse - 1);
      expect(Date.parse(res.body[0].bannedUntil)).toBeGreaterThan(Date.now() + 800_000);
      for (const key of [used, revoked, fresh]) expect(res.text).not.toContain(key.key.slice(9, -4));
      expect(res.text).not.toMatch(/[0-9a-f]{64}/);

      expect((await api.delete(`/admin/keys/${used.id}/ban`).set(auth)).status).toBe(204);
      expect((await api.get(`/admin/accounts/${account.id}/keys`).set(auth)).body[0].bannedUntil).toBeNull();
    });

    it('when the account does not exist, then 404 not_found; when it has no keys, then an empty array', async () => {
      expect((await api.get('/admin/accounts/acct_AAAAAAAAAAAAAAAAAAAA/keys').set(auth)).status).toBe(404);
      const account = await createAccount({ name: 'Keyless', plan: 'free' });
      expect((await api.get(`/admin/accounts/${account.id}/keys`).set(auth)).body).toEqual([]);
    });
  });

  describe('GET /admin/accounts/{id}', () => {
    it('when requests were accepted today, then the account carries 30 days of history ending today with them', async () => {
      const account = await createAccount({ name: 'Historic', plan: 'free' });
      await traffic(account.id, 'key_AAAAAAAAAAAAAAAAAAAA', { perMinute: 60, perDay: 1_000 }, 3);
      const res = await api.get(`/admin/accounts/${account.id}`).set(auth);
      expect(res.body.history).toHaveLength(30);
      expect(res.body.history[29]).toEqual({ day: new Date().toISOString().slice(0, 10), accepted: 3 });
      expect(res.body.history[0].day < res.body.history[29].day).toBe(true);
      expect(res.body.usage.minute.used).toBe(3);
    });
  });

  describe('GET /admin/usage/top and /admin/usage/refused', () => {
    it('when accounts have used their quotas, then top lists {accountId, plan, used, quota} (and name), highest share first', async () => {
      const full = await createAccount({ name: 'Full', plan: 'enterprise', perMinute: 2, perDay: 1_000 });
      const half = await createAccount({ name: 'Half', plan: 'free', perMinute: 10, perDay: 10 });
      await traffic(full.id, 'key_FFFFFFFFFFFFFFFFFFFF', { perMinute: 2, perDay: 1_000 }, 3);
      await traffic(half.id, 'key_HHHHHHHHHHHHHHHHHHHH', { perMinute: 10, perDay: 10 }, 5);

      const minute = await api.get('/admin/usage/top?window=minute').set(auth);
      expect(minute.status).toBe(200);
      expect(minute.body).toEqual([
        { accountId: full.id, name: 'Full', plan: 'enterprise', used: 2, quota: 2 },
        { accountId: half.id, name: 'Half', plan: 'free', used: 5, quota: 10 },
      ]);
      expect((await api.get('/admin/usage/top').set(auth)).body).toEqual(minute.body);
      const day = await api.get('/admin/usage/top?window=day&limit=1').set(auth);
      expect(day.body).toEqual([{ accountId: half.id, name: 'Half', plan: 'free', used: 5, quota: 10 }]);

      const refused = await api.get('/admin/usage/refused').set(auth);
      expect(refused.body).toEqual([{ keyId: 'key_FFFFFFFFFFFFFFFFFFFF', accountId: full.id, name: 'Full', plan: 'enterprise', refused: 1 }]);
    });

    it.each([
      ['/admin/usage/top?window=hour', 'window'],
      ['/admin/usage/top?window=', 'window'],
      ['/admin/usage/top?limit=0', 'limit'],
      ['/admin/usage/top?limit=101', 'limit'],
      ['/admin/usage/top?cursor=x', 'cursor'],
      ['/admin/usage/refused?limit=x', 'limit'],
      ['/admin/usage/refused?window=day', 'window'],
    ])('when %s is asked, then 400 invalid_parameter naming %s', async (path, parameter) => {
      expectInvalid(await api.get(path).set(auth), parameter);
    });
  });

  describe('GET /admin/audit', () => {
    it('when operators change things, then every change is recorded with its actor, action, target, before and after, newest first', async () => {
      const acme = await createAccount({ name: 'Acme', plan: 'free' }, ALICE);
      expect((await api.patch(`/admin/accounts/${acme.id}`).set(as(BOB)).send({ plan: 'enterprise', perMinute: 500, perDay: 50_000 })).status).toBe(200);
      const key = await createKey(acme.id, ALICE);
      expect((await api.delete(`/admin/keys/${key.id}/ban`).set(as(BOB))).status).toBe(204);
      expect((await api.delete(`/admin/keys/${key.id}`).set(as(ALICE))).status).toBe(204);
      expect((await api.delete(`/admin/keys/${key.id}`).set(as(ALICE))).status).toBe(204); // already revoked: no change, no entry
      expect((await api.put('/admin/plans/pro').set(auth).send({ perMinute: 400, perDay: 20_000 })).status).toBe(200);
      expect((await api.patch(`/admin/accounts/${acme.id}`).set(as(BOB)).send({})).status).toBe(200); // nothing changed: no entry

      const res = await api.get('/admin/audit').set(auth);
      expect(res.status).toBe(200);
      const at = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(res.body).toEqual([
        { at, actor: 'admin', action: 'plan.updated', target: 'pro', accountId: null, before: { perMinute: 300, perDay: 10_000 }, after: { perMinute: 400, perDay: 20_000 } },
        { at, actor: 'alice', action: 'key.revoked', target: key.id, accountId: acme.id, before: { revokedAt: null }, after: { revokedAt: at } },
        { at, actor: 'bob', action: 'ban.lifted', target: key.id, accountId: acme.id, before: { bannedUntil: null }, after: { bannedUntil: null } },
        { at, actor: 'alice', action: 'key.created', target: key.id, accountId: acme.id, before: null, after: { masked: `ask_live_…${key.key.slice(-4)}`, name: null, access: 'read-write', expiresAt: null } },
        {
          at,
          actor: 'bob',
          action: 'account.updated',
          target: acme.id,
          accountId: acme.id,
          before: { plan: 'free', perMinute: null, perDay: null },
          after: { plan: 'enterprise', perMinute: 500, perDay: 50_000 },
        },
        { at, actor: 'alice', action: 'account.created', target: acme.id, accountId: acme.id, before: null, after: { name: 'Acme', plan: 'free', perMinute: null, perDay: null, email: null } },
      ]);
    });

    it('when the trail is longer than a page, then Link pages it, and account= keeps to one account', async () => {
      const acme = await createAccount({ name: 'Acme', plan: 'free' });
      const other = await createAccount({ name: 'Other', plan: 'free' });
      for (let perDay = 2_000; perDay <= 2_004; perDay++) {
        await api.patch(`/admin/accounts/${acme.id}`).set(as(ALICE)).send({ perDay });
        await api.patch(`/admin/accounts/${other.id}`).set(as(BOB)).send({ perDay });
      }
      const first = await api.get(`/admin/audit?limit=2&account=${acme.id}`).set(auth);
      expect(first.body.map((e: { after: { perDay: number } }) => e.after.perDay)).toEqual([2_004, 2_003]);
      const pages = [first.body];
      let link = first.headers.link as string | undefined;
      while (link) {
        const next = /^<([^>]+)>; rel="next"$/.exec(link)![1]!;
        expect(next).toMatch(new RegExp(`^/admin/audit\\?limit=2&account=${acme.id}&cursor=`));
        const page = await api.get(next).set(auth);
        pages.push(page.body);
        link = page.headers.link;
      }
      expect(pages.flat().map((e: { action: string; after: { perDay?: number } }) => e.after.perDay ?? e.action)).toEqual([2_004, 2_003, 2_002, 2_001, 2_000, 'account.created']);
      expect(pages.flat().every((e: { accountId: string }) => e.accountId === acme.id)).toBe(true);
      expect((await api.get('/admin/audit?limit=100').set(auth)).body).toHaveLength(12);
    });

    it.each([
      ['limit=0', 'limit'],
      ['cursor=abc', 'cursor'],
      [`cursor=${Buffer.from('a.1.acct_AAAAAAAAAAAAAAAAAAAA').toString('base64url')}`, 'cursor'],
      ['account=acme', 'account'],
      ['actor=alice', 'actor'],
    ])('when the query has %s, then 400 invalid_parameter naming %s', async (query, parameter) => {
      expectInvalid(await api.get(`/admin/audit?${query}`).set(auth), parameter);
    });
  });

  describe('GET /admin/me and named tokens', () => {
    it('when each operator calls with their own token, then the API knows them by name; an unknown token is refused', async () => {
      expect((await api.get('/admin/me').set(as(ALICE))).body).toEqual({ actor: 'alice' });
      expect((await api.get('/admin/me').set(as(BOB))).body).toEqual({ actor: 'bob' });
      expect((await api.get('/admin/me').set(auth)).body).toEqual({ actor: 'admin' });
      const refused = await api.get('/admin/me').set(as(`${ALICE}x`));
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toMatch(/^Bearer /);
    });
  });
});
