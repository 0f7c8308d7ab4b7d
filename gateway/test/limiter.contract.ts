import { randomUUID } from 'node:crypto';
import type { BanPolicy, KeySubject, LimitDecision, Limiter, Quotas, WindowState } from '../src/limits/types';

/**
 * The behaviour every Limiter must have: the in-process limiter, the Redis limiter (one server or a
 * cluster) and the failover limiter (Redis up, Redis down). The limit and ban rules are written
 * twice by necessity, once in Lua (`limits/script.ts`, atomic in Redis) and once in TypeScript
 * (`limits/memory-limiter.ts`, atomic in the event loop), with the Redis limiter's local refusal
 * cache (`redis-limiter.ts`) continuing the script's answers between round trips: this suite is
 * what keeps them equal. Run by limiter-contract.test.ts and limiter-contract-cluster.test.ts.
 *
 * Every test uses an account and keys of its own, so limiters on one Redis need no flush between
 * tests. The clock is injected (`now`): the local caches and the in-process windows follow it. A
 * Redis window follows Redis's clock (`TIME`, the keys' TTLs), which a test cannot move: the window
 * edges are tested on the limiters whose windows follow the injected clock (`clockDrivesWindows`);
 * on Redis the day's edge is tested against Redis's own clock (limiter-day-window.test.ts).
 */
export interface LimiterUnderTest {
  /** A fresh limiter with this ban policy; the suite closes it after the test. */
  open(ban: BanPolicy): Promise<Limiter>;
  /** True when the windows follow the `now` passed in (in process), false when Redis's clock drives them. */
  clockDrivesWindows: boolean;
  /**
   * The failover limiter with its Redis down: a lifted ban is lifted in process but the call fails
   * (a 503 to the operator), since the ban would come back with Redis.
   */
  sharedStoreDown?: boolean;
}

/** Bans far away unless a test is about them. */
const NO_BAN: BanPolicy = { threshold: 1_000, seconds: 900 };
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

const subjectOf = (quotas: Quotas, accountId = `acct-${randomUUID()}`, keyId = `key-${randomUUID()}`): KeySubject => ({ accountId, keyId, quotas });
const windowOf = (decision: LimitDecision | WindowState[], name: 'minute' | 'day'): WindowState => {
  const windows = Array.isArray(decision) ? decision : decision.windows;
  return windows.find((window) => window.name === name)!;
};
const untilMidnight = (now: number) => DAY_MS - (now % DAY_MS);

export function limiterContract(name: string, { open, clockDrivesWindows, sharedStoreDown = false }: LimiterUnderTest): void {
  describe(`${name} (Limiter contract)`, () => {
    const opened: Limiter[] = [];
    const limiter = async (ban: BanPolicy = NO_BAN) => {
      const made = await open(ban);
      opened.push(made);
      return made;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((made) => made.close()));
    });

    describe('windows', () => {
      it('when an account sends more than its minute quota, then the quota is accepted, counting down, and the next one is refused naming the minute window', async () => {
        const limits = await limiter();
        const subject = subjectOf({ perMinute: 3, perDay: 100 });
        const now = Date.now();
        const accepted = [];
        for (let i = 0; i < 3; i++) accepted.push(await limits.consumeKey(subject, now));
        expect(accepted.map((decision) => decision.outcome)).toEqual(['allowed', 'allowed', 'allowed']);
        expect(accepted.map((decision) => windowOf(decision, 'minute').remaining)).toEqual([2, 1, 0]);
        expect(accepted.map((decision) => windowOf(decision, 'day').remaining)).toEqual([99, 98, 97]);
        const refused = await limits.consumeKey(subject, now);
        expect(refused).toMatchObject({ outcome: 'limited', binding: 'minute' });
        const { retryAfterMs } = refused as Extract<LimitDecision, { outcome: 'limited' }>;
        expect(retryAfterMs).toBeGreaterThan(0);
        expect(retryAfterMs).toBeLessThanOrEqual(MINUTE_MS);
        expect(windowOf(refused, 'minute')).toMatchObject({ limit: 3, remaining: 0, windowSeconds: 60 });
      });

      it('when the day quota is the smaller, then it refuses first, until the next 00:00 UTC', async () => {
        const limits = await limiter();
        const subject = subjectOf({ perMinute: 10, perDay: 2 });
        const now = Date.now();
        await limits.consumeKey(subject, now);
        await limits.consumeKey(subject, now);
        const refused = await limits.consumeKey(subject, now);
        expect(refused).toMatchObject({ outcome: 'limited', binding: 'day' });
        // Redis measures the day by its own clock: a second either way of ours.
        expect((refused as Extract<LimitDecision, { outcome: 'limited' }>).retryAfterMs).toBeLessThanOrEqual(untilMidnight(now) + 1_000);
        expect(windowOf(refused, 'day')).toMatchObject({ limit: 2, remaining: 0, windowSeconds: 86_400 });
      });

      it('when requests are refused, then they cost nothing: usage and history count the accepted ones only, in both windows', async () => {
        const limits = await limiter();
        const subject = subjectOf({ perMinute: 2, perDay: 100 });
        const now = Date.now();
        for (let i = 0; i < 5; i++) await limits.consumeKey(subject, now);
        const usage = await limits.usage(subject.accountId, subject.quotas, now);
        expect(windowOf(usage, 'minute')).toMatchObject({ limit: 2, remaining: 0 });
        expect(windowOf(usage, 'day')).toMatchObject({ limit: 100, remaining: 98 });
        const [today] = await limits.history(subject.accountId, 1, now);
        expect(today).toEqual({ day: new Date(now).toISOString().slice(0, 10), accepted: 2 });
      });

      it('when usage is read, then nothing is counted', async () => {
        const limits = await limiter();
        const subject = subjectOf({ perMinute: 2, perDay: 100 });
        const now = Date.now();
        for (let i = 0; i < 3; i++) await limits.usage(subject.accountId, subject.quotas, now);
        expect(windowOf(await limits.consumeKey(subject, now), 'minute').remaining).toBe(1);
      });

      it('when an anonymous client sends more than its minute budget, then the budget is accepted and the next one refused', async () => {
        const limits = await limiter();
        const ip = `198.51.100.${Math.floor(Math.random() * 250) + 1}-${randomUUID()}`;
        const now = Date.now();
        expect((await limits.consumeAnonymous(ip, 2, now)).outcome).toBe('allowed');
        expect((await limits.consumeAnonymous(ip, 2, now)).outcome).toBe('allowed');
        expect(await limits.consumeAnonymous(ip, 2, now)).toMatchObject({ outcome: 'limited', binding: 'minute' });
      });
    });

    describe('the local refusal cache and the injected clock', () => {
      it('when a refused account asks again later in the window, then the wait told shrinks by exactly the time passed', async () => {
        const limits = await limiter();
        const subject = subjectOf({ perMinute: 1, perDay: 100 });
        const now = Date.now();
        await limits.consumeKey(subject, now);
        const first = (await limits.consumeKey(subject, now)) as Extract<LimitDecision, { outcome: 'limited' }>;
        const later = (await limits.consumeKey(subject, now + 1_000)) as Extract<LimitDecision, { outcome: 'limited' }>;
        expect(later.outcome).toBe('limited');
        expect(later.retryAfterMs).toBe(first.retryAfterMs - 1_000);
      });

      it('when the limiter already knows a refusal or a ban, then it answers at once: a decision, not a promise (the 429 path)', async () => {
        const limits = await limiter({ threshold: 2, seconds: 900 });
        const subject = subjectOf({ perMinute: 1, perDay: 100 });
        const now = Date.now();
        // The request that uses the last unit tells every limiter the next one will be refused.
        expect((await limits.consumeKey(subject, now)).outcome).toBe('allowed');
        const refused = limits.consumeKey(subject, now);
        expect(refused).not.toBeInstanceOf(Promise);
        expect(refused).toMatchObject({ outcome: 'limited', binding: 'minute' });
        // Reaching the ban threshold may have to tell the shared store; the ban is known locally after that.
        expect((await limits.consumeKey(subject, now)).outcome).toBe('banned');
        const banned = limits.consumeKey(subject, now + 1);
        expect(banned).not.toBeInstanceOf(Promise);
        expect(banned).toMatchObject({ outcome: 'banned' });
      });

      it('when the account\'s quotas change while it is refused, then the new quotas decide at once (no cached refusal outlives them)', async () => {
        const limits = await limiter();
        const subject = subjectOf({ perMinute: 1, perDay: 100 });
        const now = Date.now();
        await limits.consumeKey(subject, now);
        expect((await limits.consumeKey(subject, now)).outcome).toBe('limited');
        expect((await limits.consumeKey({ ...subject, quotas: { perMinute: 5, perDay: 100 } }, now)).outcome).toBe('allowed');
      });

      it('when the account is forgotten after a quota change, then its next request is decided afresh', async () => {
        const limits = await limiter();
        const subject = subjectOf({ perMinute: 1, perDay: 100 });
        const now = Date.now();
        await limits.consumeKey(subject, now);
        limits.forgetAccount(subject.accountId);
        expect((await limits.consumeKey(subject, now)).outcome).toBe('limited');
      });
    });

    describe('bans', () => {
      const BAN: BanPolicy = { threshold: 2, seconds: 900 };

      it('when a key keeps sending while refused, then it is banned at the threshold, for the ban\'s length, and told so until the ban is lifted', async () => {
        const limits = await limiter(BAN);
        const subject = subjectOf({ perMinute: 1, perDay: 100 });
        const ref = { accountId: subject.accountId, keyId: subject.keyId };
        const now = Date.now();
        expect(await limits.bannedUntil(ref, now)).toBeNull();
        expect((await limits.consumeKey(subject, now)).outcome).toBe('allowed');
        expect((await limits.consumeKey(subject, now)).outcome).toBe('limited');
        const banned = await limits.consumeKey(subject, now);
        expect(banned.outcome).toBe('banned');
        const { bannedUntilMs } = banned as Extract<LimitDecision, { outcome: 'banned' }>;
        // On Redis the ban's TTL is Redis's: within a second of ours.
        expect(Math.abs(bannedUntilMs - (now + 900_000))).toBeLessThanOrEqual(1_000);
        expect((await limits.consumeKey(subject, now + 1)).outcome).toBe('banned');
        expect(Math.abs((await limits.bannedUntil(ref, now))! - (now + 900_000))).toBeLessThanOrEqual(1_000);

        const lifting = limits.liftBan(ref);
        if (sharedStoreDown) await expect(lifting).rejects.toThrow();
        else await lifting;
        expect(await limits.bannedUntil(ref, now)).toBeNull();
        // Judged by its windows again: the minute is still spent.
        expect((await limits.consumeKey(subject, now + 2)).outcome).toBe('limited');
      });

      it('when one key of an account is banned, then the account\'s other keys are only limited', async () => {
        const limits = await limiter(BAN);
        const subject = subjectOf({ perMinute: 1, perDay: 100 });
        const other = { ...subject, keyId: `key-${randomUUID()}` };
        const now = Date.now();
        for (let i = 0; i < 3; i++) await limits.consumeKey(subject, now);
        expect((await limits.consumeKey(subject, now)).outcome).toBe('banned');
        expect((await limits.consumeKey(other, now)).outcome).toBe('limited');
        expect(await limits.bannedUntil({ accountId: other.accountId, keyId: other.keyId }, now)).toBeNull();
      });

      it('when the threshold is not set, then the key\'s per-minute quota is its threshold', async () => {
        const limits = await limiter({ threshold: null, seconds: 900 });
        const subject = subjectOf({ perMinute: 2, perDay: 100 });
        const now = Date.now();
        const outcomes = [];
        for (let i = 0; i < 5; i++) outcomes.push((await limits.consumeKey(subject, now)).outcome);
        expect(outcomes).toEqual(['allowed', 'allowed', 'limited', 'banned', 'banned']);
      });
    });

    // Registered only where the windows follow the injected clock (see above); Redis's are tested on its clock elsewhere.
    if (clockDrivesWindows) describe('window edges on the injected clock', () => {
      const T0 = Date.UTC(2031, 2, 10, 12, 0, 0);
      const BEFORE_MIDNIGHT = Date.UTC(2031, 2, 10, 23, 59, 0);

      it('when the minute started by the first request ends, then requests are accepted again, and not a millisecond before', async () => {
        const limits = await limiter();
        const subject = subjectOf({ perMinute: 2, perDay: 100 });
        await limits.consumeKey(subject, T0);
        await limits.consumeKey(subject, T0 + 30_000);
        expect(await limits.consumeKey(subject, T0 + 59_999)).toMatchObject({ outcome: 'limited', binding: 'minute', retryAfterMs: 1 });
        expect((await limits.consumeKey(subject, T0 + 60_000)).outcome).toBe('allowed');
      });

      it('when 00:00 UTC passes, then the day count starts again', async () => {
        const limits = await limiter();
        const subject = subjectOf({ perMinute: 1_000, perDay: 3 });
        for (let i = 0; i < 3; i++) await limits.consumeKey(subject, BEFORE_MIDNIGHT);
        expect(await limits.consumeKey(subject, BEFORE_MIDNIGHT + 1_000)).toMatchObject({ outcome: 'limited', binding: 'day', retryAfterMs: 59_000 });
        expect((await limits.consumeKey(subject, BEFORE_MIDNIGHT + 60_000)).outcome).toBe('allowed');
      });

      it('when a ban\'s time is over, then the key is judged by its windows again', async () => {
        const limits = await limiter({ threshold: 1, seconds: 10 });
        const subject = subjectOf({ perMinute: 1, perDay: 100 });
        await limits.consumeKey(subject, T0);
        expect(await limits.consumeKey(subject, T0 + 1)).toMatchObject({ outcome: 'banned', bannedUntilMs: T0 + 1 + 10_000 });
        expect((await limits.consumeKey(subject, T0 + 10_000)).outcome).toBe('banned');
        expect((await limits.consumeKey(subject, T0 + 61_000)).outcome).toBe('allowed');
      });
    });
  });
}
