import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { sleep, waitFor } from '../../test/helpers/ports';
import { createLimiter, RedisLimiter, withFallback, type Limiter, type LimitDecision } from '../src/limits';
import { useRedis } from './support/redis';

interface LogLine {
  level: number;
  msg: string;
  err?: { message: string };
}

const WARN = 40;
const INFO = 30;
const ban = { threshold: 1000, seconds: 900 };
const redis = useRedis();

function memoryLogger() {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

/** Sends requests back to back until stopped, timing each one; an exception is recorded, not thrown. */
function traffic(limiter: Limiter, accountId: string) {
  const durations: number[] = [];
  const failures: unknown[] = [];
  const decisions: LimitDecision[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const started = performance.now();
      try {
        decisions.push(await limiter.consumeKey({ accountId, keyId: 'k', quotas: { perMinute: 1_000_000, perDay: 10_000_000 } }));
      } catch (err) {
        failures.push(err);
      }
      durations.push(performance.now() - started);
      await sleep(5);
    }
  })();
  return {
    durations,
    failures,
    decisions,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

describe('Redis outage', () => {
  it('when Redis stops under traffic and comes back, then no call waits or fails, limits hold in-process, and Redis takes over again', async () => {
    const { logger, lines } = memoryLogger();
    const modeChanges: boolean[] = [];
    const limiter = withFallback(new RedisLimiter({ redis: await redis.connection(), ban }), { logger, ban, onModeChange: (degraded) => modeChanges.push(degraded) });
    const load = traffic(limiter, randomUUID());

    await sleep(200);
    expect(limiter.mode).toBe('redis');
    await redis.server.stop();
    await waitFor(() => limiter.degraded, 10_000, 'the limiter to fall back');
    const outageBegan = performance.now();
    expect(limiter.mode).toBe('in-process (redis unavailable)');
    // The same quotas apply in-process.
    const during = { accountId: randomUUID(), keyId: 'k', quotas: { perMinute: 3, perDay: 100 } };
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push((await limiter.consumeKey(during)).outcome);
    expect(outcomes).toEqual(['allowed', 'allowed', 'allowed', 'limited']);
    expect((await limiter.consumeAnonymous('203.0.113.9', 1)).outcome).toBe('allowed');
    expect((await limiter.consumeAnonymous('203.0.113.9', 1)).outcome).toBe('limited');

    // An outage of 3 s at least: a call that waited for Redis instead of its 250 ms deadline would take that long.
    await sleep(3_000 - (performance.now() - outageBegan));
    await redis.server.start();
    await waitFor(() => !limiter.degraded, 15_000, 'the limiter to return to Redis');
    const answeredAfter = load.decisions.length;
    await waitFor(() => load.decisions.length > answeredAfter, 10_000, 'traffic answered on Redis');
    await load.stop();

    expect(load.failures).toEqual([]);
    expect(load.decisions.every((d) => d.outcome === 'allowed')).toBe(true);
    expect(Math.max(...load.durations)).toBeLessThan(2_000);
    expect(limiter.mode).toBe('redis');
    expect(modeChanges).toEqual([true, false]);

    // Back on Redis: what this limiter counts, another replica reads from Redis.
    const after = { accountId: randomUUID(), keyId: 'k', quotas: { perMinute: 5, perDay: 100 } };
    await limiter.consumeKey(after);
    await limiter.consumeKey(after);
    const replica = createLimiter({ redis: await redis.connection(), logger: pino({ level: 'silent' }), ban });
    const usage = await replica.usage(after.accountId, after.quotas);
    expect(usage.find((w) => w.name === 'minute')?.remaining).toBe(3);
    expect(replica.degraded).toBe(false);

    const incidents = lines.filter((l) => l.level === WARN);
    expect(incidents).toHaveLength(1);
    expect(incidents[0]?.msg).toMatch(/Redis unavailable/);
    expect(incidents[0]?.err?.message).toEqual(expect.any(String));
    expect(lines.filter((l) => l.level === INFO && /Redis is back/.test(l.msg))).toHaveLength(1);

    await Promise.all([limiter.close(), replica.close()]);
  }, 40_000);

  it('when Redis is down from the start, then the first requests are answered in-process at once', async () => {
    await redis.server.stop();
    const limiter = createLimiter({ redis: await redis.connection(100), logger: pino({ level: 'silent' }), ban });
    const started = performance.now();
    const decision = await limiter.consumeKey({ accountId: randomUUID(), keyId: 'k', quotas: { perMinute: 1, perDay: 1 } });
    // At once: not held until Redis is back (it is not, until the end of the test).
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(decision.outcome).toBe('allowed');
    expect(limiter.degraded).toBe(true);

    await redis.server.start();
    await waitFor(() => !limiter.degraded, 15_000, 'the limiter to reach Redis');
    await limiter.close();
  }, 20_000);
});
