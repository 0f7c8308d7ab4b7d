import type { Redis } from '../src/redis';
import { createLimiter } from '../src/limits';
import type { KeySubject } from '../src/limits/types';
import { RedisUsageBoard } from '../src/usage/redis-usage-board';
import { useRedis } from './support/redis';
import pino from 'pino';

/**
 * The usage board shared through Redis, on a real redis-server: two "replicas" (each a Redis
 * limiter and a board on a connection of its own) count one account, and either reads the same
 * board once both have flushed.
 */
const redis = useRedis();
const logger = pino({ level: 'silent' });
const key = (name: string) => `{gw}:${name}`;

async function replica() {
  const client = await redis.connection(500);
  const limiter = redis.closeAfter(createLimiter({ redis: client, logger, ban: { threshold: 3, seconds: 60 } }));
  // A long interval: the tests flush when they choose to.
  const board = redis.closeAfter(new RedisUsageBoard({ redis: client, key, flushIntervalMs: 60_000 }));
  return {
    client,
    board,
    /** A request through this replica, observed as the rate-limit stage does. */
    async request(subject: KeySubject) {
      const decision = await limiter.consumeKey(subject);
      board.observe(subject, decision, Date.now());
      return decision.outcome;
    },
  };
}

afterEach(async () => {
  await redis.closeOpened();
  await redis.reset();
});

let n = 0;
const subject = (perMinute: number, perDay: number): KeySubject => {
  n += 1;
  return { accountId: `acct_${String(n).padStart(20, '0')}`, keyId: `key_${String(n).padStart(20, '0')}`, quotas: { perMinute, perDay } };
};

describe('RedisUsageBoard specifics', () => {
  it('when two replicas count one account and flush, then either reads the account\'s whole use, not its own share', async () => {
    const [a, b] = [await replica(), await replica()];
    const busy = subject(10, 1_000);
    for (let i = 0; i < 4; i++) await a.request(busy);
    for (let i = 0; i < 3; i++) await b.request(busy);
    // b saw the later (larger) count; a flushing after it must not bring the board back to 4.
    await b.board.flush();
    await a.board.flush();
    for (const board of [a.board, b.board]) {
      expect(await board.top('minute', 10)).toEqual([{ accountId: busy.accountId, used: 7, quota: 10 }]);
      expect(await board.top('day', 10)).toEqual([{ accountId: busy.accountId, used: 7, quota: 1_000 }]);
    }
  });

  it('when several accounts are on the board, then the highest share of quota comes first and limit cuts the list', async () => {
    const a = await replica();
    const [light, heavy, full] = [subject(100, 1_000), subject(10, 1_000), subject(2, 1_000)];
    for (let i = 0; i < 5; i++) await a.request(light);
    for (let i = 0; i < 8; i++) await a.request(heavy);
    for (let i = 0; i < 2; i++) await a.request(full);
    await a.board.flush();
    expect(await a.board.top('minute', 10)).toEqual([
      { accountId: full.accountId, used: 2, quota: 2 },
      { accountId: heavy.accountId, used: 8, quota: 10 },
      { accountId: light.accountId, used: 5, quota: 100 },
    ]);
    expect((await a.board.top('minute', 1)).map((entry) => entry.accountId)).toEqual([full.accountId]);
    expect((await a.board.top('day', 1)).map((entry) => entry.accountId)).toEqual([heavy.accountId]);
  });

  it('when keys are refused on two replicas, then refused adds up their refusals per key, most refused first', async () => {
    const [a, b] = [await replica(), await replica()];
    const noisy = subject(1, 1_000);
    const quiet = subject(1, 1_000);
    await a.request(noisy);
    await a.request(noisy); // limited
    await b.request(noisy); // limited
    await b.request(noisy); // limited: the third rejection bans the key
    await b.request(noisy); // banned
    await a.request(quiet);
    await a.request(quiet); // limited
    await a.board.flush();
    await b.board.flush();
    expect(await b.board.refused(10)).toEqual([
      { keyId: noisy.keyId, accountId: noisy.accountId, refused: 4 },
      { keyId: quiet.keyId, accountId: quiet.accountId, refused: 1 },
    ]);
  });

  it('when a minute window has ended, then the account leaves the minute board (and its entries leave Redis)', async () => {
    const a = await replica();
    const account = subject(10, 1_000);
    await a.request(account);
    await a.board.flush();
    expect(await a.board.top('minute', 10, Date.now())).toHaveLength(1);
    expect(await a.board.top('minute', 10, Date.now() + 61_000)).toEqual([]);
    expect(await redis.server.client.hlen('{gw}:usage:minute:detail')).toBe(0);
  });

  it('when Redis is down at a flush, then nothing observed is lost: the next flush sends it', async () => {
    const a = await replica();
    const account = subject(10, 1_000);
    await a.request(account);
    await a.request(account);
    await redis.server.stop();
    await expect(a.board.flush()).rejects.toMatchObject({ name: 'StoreUnavailableError' });
    await redis.server.start();
    await waitForReady(a.client);
    await a.board.flush();
    expect(await a.board.top('minute', 10)).toEqual([{ accountId: account.accountId, used: 2, quota: 10 }]);
  });

  it('when the board flushes, then every key it writes is under the store\'s prefix (one hash tag on a cluster)', async () => {
    const a = await replica();
    const account = subject(1, 1_000);
    await a.request(account);
    await a.request(account);
    await a.board.flush();
    const keys = await redis.server.client.keys('*usage*');
    expect(keys.length).toBeGreaterThanOrEqual(5);
    expect(keys.every((name) => name.startsWith('{gw}:usage:'))).toBe(true);
  });
});

async function waitForReady(client: Redis): Promise<void> {
  for (let i = 0; i < 100 && client.status !== 'ready'; i++) await new Promise((resolve) => setTimeout(resolve, 50));
}
