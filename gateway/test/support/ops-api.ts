import pino from 'pino';
import request from 'supertest';
import { createLogger } from '../../../shared/src/logger';
import { AccountService } from '../../src/accounts/account-service';
import { createAdminApp } from '../../src/admin/app';
import { OpsReports } from '../../src/accounts/reports';
import { RedisAccountStore } from '../../src/accounts/redis-account-store';
import type { AccountStore } from '../../src/accounts/account-store';
import type { AuditLog } from '../../src/audit/audit-log';
import { RedisAuditLog } from '../../src/audit/redis-audit-log';
import { createLimiter } from '../../src/limits';
import type { BanPolicy, Limiter } from '../../src/limits/types';
import { KeyUseRecorder } from '../../src/usage/key-use';
import { RedisUsageBoard } from '../../src/usage/redis-usage-board';
import type { UsageBoard } from '../../src/usage/usage-board';
import { opsParts } from './ops';
import { useRedis } from './redis';
import { SHARED_TOKEN_ACTOR } from '../../src/admin/tokens';

/**
 * What the operations endpoints' tests (CONTRACT "Operations", gateway/test/ops-api-*.test.ts) share:
 * the admin app on both stacks the gateway runs on, everything in process and everything on a real
 * redis-server (store, limiter, usage board, audit stream), with a shared token and two operators' own.
 */

export const ADMIN = 'shared-admin-token-0123456789';
export const ALICE = 'alice-own-token-0123456789';
export const BOB = 'bob-own-token-0123456789';
const logger = createLogger('ops-test', 'silent');
const ban: BanPolicy = { threshold: 3, seconds: 900 };

interface Stack {
  store: AccountStore;
  limiter: Limiter;
  board: UsageBoard;
  audit: AuditLog;
  keyUse: KeyUseRecorder;
  close(): Promise<void>;
}

type OpenStack = () => Promise<Stack>;

function stacks(redis: ReturnType<typeof useRedis>): [string, OpenStack][] {
  return [
    [
      'in process',
      async () => {
        const { store, limiter, board, audit } = opsParts({ ban });
        const keyUse = new KeyUseRecorder({ store, flushIntervalMs: 60_000 });
        return { store, limiter, board, audit, keyUse, close: () => keyUse.close() };
      },
    ],
    [
      'on Redis',
      async () => {
        await redis.server.flushAll();
        const client = await redis.connection(2_000);
        const store = await RedisAccountStore.connect(redis.url);
        const key = (name: string) => store.key(name);
        const limiter = createLimiter({ redis: client, logger: pino({ level: 'silent' }), ban });
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
}

/**
 * `tests` once per stack ("<title>, in process", "<title>, on Redis"), each test on a new admin app
 * over a new, empty stack. Call at the top level of a test file: the Redis stack's server is the file's.
 */
export function describeOnEachStack(title: string, tests: (ops: OpsApi) => void): void {
  const redis = useRedis();
  describe.each(stacks(redis))(`${title}, %s`, (_name, open) => {
    tests(useOpsApi(open));
  });
}

/** The admin app on a stack `open` makes before each test (and closes after it), and what the tests do with it. */
function useOpsApi(open: OpenStack) {
  let stack: Stack | undefined;
  let api: ReturnType<typeof request> | undefined;
  let lastTime = 0;
  // Strictly increasing, so creation order is the order of a test's calls.
  const now = () => (lastTime = Math.max(Date.now(), lastTime + 1));
  const as = (token: string) => ({ Authorization: `Bearer ${token}` });

  beforeEach(async () => {
    stack = await open();
    const { store, limiter, board, audit, keyUse } = stack;
    const service = new AccountService({ store, limiter, audit, keyActivity: keyUse, logger, now });
    const app = createAdminApp({
      service,
      reports: new OpsReports({ store, board, audit }),
      adminTokens: [
        { name: SHARED_TOKEN_ACTOR, token: ADMIN },
        { name: 'alice', token: ALICE },
        { name: 'bob', token: BOB },
      ],
      logger,
    });
    api = request(app);
  });

  afterEach(async () => {
    await stack?.close();
  });

  const ops = {
    /** The current test's admin app. */
    get api(): ReturnType<typeof request> {
      if (!api) throw new Error('the admin app is made in beforeEach');
      return api;
    },
    /** The current test's stack, for what a test does behind the API's back. */
    get stack(): Stack {
      if (!stack) throw new Error('the stack is opened in beforeEach');
      return stack;
    },
    as,
    /** The shared admin token's header. */
    auth: as(ADMIN),

    async createAccount(body: object, token = ADMIN): Promise<{ id: string; name: string }> {
      const res = await ops.api.post('/admin/accounts').set(as(token)).send(body);
      expect(res.status).toBe(201);
      return res.body;
    },

    async createKey(accountId: string, token = ADMIN): Promise<{ id: string; key: string }> {
      const res = await ops.api.post(`/admin/accounts/${accountId}/keys`).set(as(token));
      expect(res.status).toBe(201);
      return res.body;
    },

    expectInvalid(res: request.Response, parameter: string) {
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'invalid_parameter' });
      expect(res.body.message).toContain(parameter);
    },

    /** Requests of one key, decided by the limiter and observed as the rate-limit stage does. */
    async traffic(accountId: string, keyId: string, quotas: { perMinute: number; perDay: number }, count: number) {
      const { limiter, board, keyUse } = ops.stack;
      const outcomes: string[] = [];
      for (let i = 0; i < count; i++) {
        const subject = { accountId, keyId, quotas };
        const decision = await limiter.consumeKey(subject);
        board.observe(subject, decision, Date.now());
        keyUse.note(keyId, Date.now());
        outcomes.push(decision.outcome);
      }
      await board.flush();
      return outcomes;
    },
  };
  return ops;
}

export type OpsApi = ReturnType<typeof useOpsApi>;
