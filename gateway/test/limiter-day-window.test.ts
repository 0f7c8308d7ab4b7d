import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { Redis } from 'ioredis';
import { createLimiter, type Limiter, type LimitDecision } from '../src/limits';
import { useRedis } from './support/redis';

const logger = pino({ level: 'silent' });
const ban = { threshold: 1000, seconds: 900 };
const DAY_MS = 86_400_000;
const TOLERANCE_MS = 2_000;
const server = useRedis();
let redis: Redis;

beforeAll(async () => {
  redis = await server.connection();
});

/** Redis's own clock, read around the script call, so the test checks against the clock the script used. */
async function redisNowMs(): Promise<number> {
  const [seconds, micros] = (await server.server.client.time()).map(Number);
  return seconds! * 1000 + Math.floor(micros! / 1000);
}

async function exhaustDay(limiter: Limiter) {
  const accountId = randomUUID();
  const quotas = { perMinute: 1000, perDay: 25 };
  const decisions = await Promise.all(Array.from({ length: 40 }, () => limiter.consumeKey({ accountId, keyId: 'k', quotas })));
  const refused = await limiter.consumeKey({ accountId, keyId: 'k', quotas });
  return { decisions, refused };
}

const nextMidnightAfter = (clockMs: number) => (Math.floor(clockMs / DAY_MS) + 1) * DAY_MS;

/**
 * Exactly 25 accepted, each with a unit of its own (remaining 24..0, each once), and each told that
 * the day resets at the next 00:00 UTC to the millisecond: a reset anchored on the time of the call
 * would drift with each one.
 */
function expectAcceptedUntilMidnight(decisions: LimitDecision[], clockMs: number) {
  const accepted = decisions.filter((d) => d.outcome === 'allowed').map((d) => d.windows.find((w) => w.name === 'day')!);
  expect(accepted.map((w) => w.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i));
  expect(new Set(accepted.map((w) => w.resetAtMs))).toEqual(new Set([nextMidnightAfter(clockMs)]));
}

function expectRefusedUntilMidnight(refused: LimitDecision, clockMs: number) {
  const nextMidnight = nextMidnightAfter(clockMs);
  expect(refused.outcome).toBe('limited');
  if (refused.outcome !== 'limited') return;
  expect(refused.binding).toBe('day');
  expect(Math.abs(Date.now() + refused.retryAfterMs - nextMidnight)).toBeLessThan(TOLERANCE_MS);
  const day = refused.windows.find((w) => w.name === 'day')!;
  expect(day).toMatchObject({ limit: 25, remaining: 0, windowSeconds: 86_400 });
  expect(Math.abs(day.resetAtMs - nextMidnight)).toBeLessThan(TOLERANCE_MS);
}

describe('day window', () => {
  it('when a 25/day account sends 40 requests on Redis, then exactly 25 pass and the rest wait for 00:00 UTC', async () => {
    const limiter = createLimiter({ redis, logger, ban });
    const { decisions, refused } = await exhaustDay(limiter);
    const clockMs = await redisNowMs();
    expectAcceptedUntilMidnight(decisions, clockMs);
    expectRefusedUntilMidnight(refused, clockMs);
    await limiter.close();
  });

  it('when a 25/day account sends 40 requests in-process, then exactly 25 pass and the rest wait for 00:00 UTC', async () => {
    const limiter = createLimiter({ logger, ban });
    const { decisions, refused } = await exhaustDay(limiter);
    expectAcceptedUntilMidnight(decisions, Date.now());
    expectRefusedUntilMidnight(refused, Date.now());
    await limiter.close();
  });
});
