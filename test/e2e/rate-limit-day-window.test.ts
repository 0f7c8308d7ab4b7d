import { admin, createAccountWithKey, startSystem, type SystemHandle } from '../helpers/system';
import { call, expectError, nextUtcMidnightSeconds, rateLimitOf, sequence, statusCounts } from '../helpers/traffic';

/** The day window is the calendar day in UTC: it refuses after perDay and frees at the next 00:00 UTC. */
let system: SystemHandle;

beforeAll(async () => {
  system = await startSystem({ redis: true });
});

afterAll(async () => {
  await system?.stop();
});

describe('rate limit day window (real processes, real Redis)', () => {
  it('when an account with perMinute 1000 and perDay 25 sends 30 requests, then exactly 25 are accepted and the rest are refused until the next 00:00 UTC', async () => {
    const gateway = system.gateways[0]!;
    const { key, accountId } = await createAccountWithKey(gateway.adminUrl, { plan: 'enterprise', perMinute: 1000, perDay: 25 });

    const replies = await sequence(30, () => call(`${gateway.url}/v1/pets`, { key }));

    expect(statusCounts(replies)).toEqual({ 200: 25, 429: 5 });
    expect(replies.slice(0, 25).every((r) => r.status === 200)).toBe(true);
    // While accepted, the day window has the fewest remaining, so it is the one shown: 24 down to 0.
    expect(replies.slice(0, 25).map((r) => Number(r.headers['x-ratelimit-remaining']))).toEqual(Array.from({ length: 25 }, (_, i) => 24 - i));
    expect(replies.slice(0, 25).every((r) => r.headers['x-ratelimit-limit'] === '25')).toBe(true);
    // Each of them says the day window resets at the next 00:00 UTC exactly (each is a separate script run,
    // so a reset anchored with the round trip's jitter would show up here as 00:00:01).
    expect(new Set(replies.slice(0, 25).map((r) => rateLimitOf(r).reset))).toEqual(new Set([nextUtcMidnightSeconds(Date.now())]));

    for (const refused of replies.slice(25)) {
      const now = Date.now();
      const midnight = nextUtcMidnightSeconds(now);
      expectError(refused, 429, 'rate_limited');
      const view = rateLimitOf(refused, now);
      expect(view).toMatchObject({ limit: 25, remaining: 0, rateLimit: { name: 'day', r: 0 } });
      expect(view.reset).toBe(midnight);
      const secondsToMidnight = midnight - now / 1000;
      expect(Math.abs(view.retryAfter! - secondsToMidnight)).toBeLessThanOrEqual(3);
      expect(Math.abs(view.rateLimit.t - secondsToMidnight)).toBeLessThanOrEqual(3);
      expect(refused.headers['ratelimit-policy']).toBe('"minute";q=1000;w=60, "day";q=25;w=86400');
    }

    // The refused requests cost nothing: the day count stays at 25 in the ops view.
    const details = await admin<{ usage: { day: { used: number; limit: number }; minute: { used: number } } }>(gateway.adminUrl, 'GET', `/admin/accounts/${accountId}`);
    expect(details.body.usage.day).toMatchObject({ used: 25, limit: 25 });
    expect(details.body.usage.minute.used).toBe(25);
  });
});
