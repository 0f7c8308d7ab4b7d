/**
 * The rate-limit stage with the gateway's limiter (failover over Redis, a real redis-server), old
 * code against new: `node dist/bench/micro/rate-limit-stage.js OLD_DIST [refused|accepted|anonymous] [ROUNDS]`
 * (see `app-middleware.ts` for OLD_DIST). Each call runs one request through the stage (`rateLimit`)
 * up to its `next`, headers set on a real `ServerResponse`:
 * - `refused` (default): a key whose account is over its quota, refused by the replica from what
 *   it knows (no Redis command), the 429 path; its ban threshold is out of reach;
 * - `accepted`: a key with quota to spare, one script round trip each (accounts rotate over 1,000);
 * - `anonymous`: a request without a valid key, its address refused from the in-memory block.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import pino from 'pino';
import { TestRedis } from '../../tools/redis-server';
import { alternateAsync, timingText } from './alternate';

type Handler = (req: unknown, res: unknown, next: (err?: unknown) => void) => void;
interface Quotas {
  perMinute: number;
  perDay: number;
}
interface DistLimiter {
  consumeKey(subject: object, now?: number): unknown;
  consumeAnonymous(ip: string, perMinute: number): Promise<unknown>;
  close(): Promise<void>;
}

type Scenario = 'refused' | 'accepted' | 'anonymous';
const ACCOUNTS = 1_000;
const ANON_PER_MINUTE = 1;

async function stageOf(dist: string, redisUrl: string, scenario: Scenario, tag: string): Promise<{ call: () => void; settled: () => Promise<void> }> {
  /* eslint-disable @typescript-eslint/no-require-imports -- two builds of the same modules, chosen at run time */
  const { RedisLimiter, withFallback } = require(path.join(dist, 'gateway/src/limits/index.js')) as {
    RedisLimiter: new (o: object) => DistLimiter;
    withFallback: (primary: DistLimiter, o: object) => DistLimiter;
  };
  const { connectRedis } = require(path.join(dist, 'gateway/src/redis.js')) as { connectRedis: (url: string) => Promise<object> };
  const { rateLimit } = require(path.join(dist, 'gateway/src/pipeline/rate-limit.js')) as { rateLimit: (o: object) => Handler };
  /* eslint-enable @typescript-eslint/no-require-imports */
  const ban = { threshold: 1_000_000_000, seconds: 900 };
  const limiter = withFallback(new RedisLimiter({ redis: await connectRedis(redisUrl), ban }), { logger: pino({ level: 'silent' }), ban });
  const stage = rateLimit({ limiter, anonPerMinute: ANON_PER_MINUTE, anonIpv6PrefixLength: 56, onDecision: () => undefined, onKeyDecision: () => undefined });

  const quotas: Quotas = scenario === 'refused' ? { perMinute: 1, perDay: 1_000 } : { perMinute: 1_000_000_000, perDay: 1_000_000_000 };
  const principals = Array.from({ length: scenario === 'accepted' ? ACCOUNTS : 1 }, (_, i) => ({
    keyId: `key_${tag}_${i}`,
    accountId: `acct_${tag}_${i}`,
    plan: 'free',
    quotas,
    access: 'read-write',
    expiresAt: null,
    replacedBy: null,
  }));
  // Spend the refused account's minute (and the anonymous budget) so what follows is refused locally.
  for (const principal of principals) await limiter.consumeKey(principal);
  if (scenario === 'anonymous') await limiter.consumeAnonymous(`10.0.${tag === 'old' ? 1 : 2}.1`, ANON_PER_MINUTE).catch(() => undefined);

  const req = new IncomingMessage({ remoteAddress: '127.0.0.1' } as never) as IncomingMessage & { ip: string };
  req.ip = `10.0.${tag === 'old' ? 1 : 2}.1`;
  const res = new ServerResponse(req) as unknown as ServerResponse & { locals: object };
  let pending = 0;
  let whenDone: (() => void) | undefined;
  const next = () => {
    pending -= 1;
    if (pending === 0) whenDone?.();
  };
  let turn = 0;
  const call = () => {
    pending += 1;
    res.locals = scenario === 'anonymous' ? {} : { principal: principals[turn++ % principals.length] };
    stage(req, res, next);
  };
  const settled = () =>
    pending === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          whenDone = () => {
            whenDone = undefined;
            resolve();
          };
        });
  return { call, settled };
}

async function main(): Promise<void> {
  const old = process.argv[2];
  const scenario = (process.argv[3] ?? 'refused') as Scenario;
  if (!old || !['refused', 'accepted', 'anonymous'].includes(scenario)) {
    process.stderr.write('usage: node dist/bench/micro/rate-limit-stage.js OLD_DIST [refused|accepted|anonymous] [ROUNDS]\n');
    process.exit(2);
  }
  const redis = await TestRedis.start();
  try {
    const variants = { old: await stageOf(path.resolve(old), redis.url, scenario, 'old'), new: await stageOf(path.resolve(__dirname, '../..'), redis.url, scenario, 'new') };
    const timings = await alternateAsync(
      {
        old: () => variants.old.call(),
        new: () => variants.new.call(),
      },
      { rounds: Number(process.argv[4] ?? 9), iterations: scenario === 'accepted' ? 2_000 : 20_000, settled: async () => void (await Promise.all([variants.old.settled(), variants.new.settled()])) },
    );
    process.stdout.write(`${scenario}\n${timingText(timings)}\n`);
  } finally {
    await redis.stop();
  }
  // The limiters' Redis connections are left open: this process is done.
  process.exit(0);
}

void main();
