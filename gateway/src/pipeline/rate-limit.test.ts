import request from 'supertest';
import { ApiError } from '../../../shared/src/errors';
import { presetLocals, stageApp } from '../../test/support/stage-app';
import type { KeyAccess, Principal } from '../accounts/types';
import { MemoryLimiter } from '../limits/memory-limiter';
import type { KeySubject, LimitDecision } from '../limits/types';
import { rateLimit, type RateLimitOptions } from './rate-limit';
import type { V1Locals } from './locals';

const ANON_PER_MINUTE = 3;

function principal(perMinute: number, access: KeyAccess = 'read-write'): Principal {
  return { keyId: 'key_1', accountId: 'acct_1', plan: 'free', quotas: { perMinute, perDay: 1_000 }, access, expiresAt: null, replacedBy: null };
}

/** The decisions the stage reports, in order. */
let decisions: Array<{ outcome: LimitDecision['outcome']; caller: 'key' | 'anonymous' }>;
let keyDecisions: Array<{ subject: KeySubject; outcome: LimitDecision['outcome'] }>;
let limiter: MemoryLimiter;

beforeEach(() => {
  decisions = [];
  keyDecisions = [];
  // Far from a ban unless a test says otherwise.
  limiter = new MemoryLimiter({ threshold: 100, seconds: 60 });
});
afterEach(() => limiter.close());

function appWith(locals: V1Locals, limits: Pick<RateLimitOptions, 'limiter'> = { limiter }) {
  return stageApp(
    presetLocals(locals),
    rateLimit({
      anonPerMinute: ANON_PER_MINUTE,
      anonIpv6PrefixLength: 56,
      onDecision: (outcome, caller) => decisions.push({ outcome, caller }),
      onKeyDecision: (subject, decision) => keyDecisions.push({ subject, outcome: decision.outcome }),
      ...limits,
    }),
  );
}

describe('the rateLimit stage', () => {
  it("when a key's request is accepted, then it goes on with the account's headers, and the decision is reported with the key", async () => {
    const caller = principal(5);
    const res = await request(appWith({ principal: caller })).get('/v1/pets').expect(200);
    expect(res.headers).toMatchObject({ 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '4', 'ratelimit-policy': '"minute";q=5;w=60, "day";q=1000;w=86400' });
    expect(res.headers['retry-after']).toBeUndefined();
    expect(decisions).toEqual([{ outcome: 'allowed', caller: 'key' }]);
    expect(keyDecisions).toEqual([{ subject: caller, outcome: 'allowed' }]);
  });

  it("when the account's window is used up, then 429 rate_limited names the window, with Retry-After as the message says", async () => {
    const app = appWith({ principal: principal(1) });
    await request(app).get('/v1/pets').expect(200);
    const res = await request(app).get('/v1/pets').expect(429);
    const retryAfter = String(res.headers['retry-after']);
    expect(res.body).toEqual({ code: 'rate_limited', status: 429, message: `Rate limit exceeded: the account's per-minute limit is used up; retry after ${retryAfter} seconds.` });
    expect(res.headers).toMatchObject({ 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0' });
    expect(decisions.map(({ outcome }) => outcome)).toEqual(['allowed', 'limited']);
  });

  it('when the key is banned for sending while limited, then 429 temporarily_banned with Retry-After', async () => {
    limiter = new MemoryLimiter({ threshold: 1, seconds: 120 });
    const app = appWith({ principal: principal(1) });
    await request(app).get('/v1/pets').expect(200);
    // The first refusal reaches the threshold: it is answered as the ban it starts.
    const res = await request(app).get('/v1/pets').expect(429);
    expect(res.body).toEqual({
      code: 'temporarily_banned',
      status: 429,
      message: `This API key is temporarily banned for sending requests while rate limited; retry after ${String(res.headers['retry-after'])} seconds.`,
    });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(60);
    expect(decisions.map(({ outcome }) => outcome)).toEqual(['allowed', 'banned']);
  });

  it('when a read-only key writes, then it is counted like any request and goes on: access is decided after the limits (authorize)', async () => {
    const app = appWith({ principal: principal(5, 'read-only') });
    expect((await request(app).post('/v1/pets').expect(200)).headers['x-ratelimit-remaining']).toBe('4');
    expect(decisions).toEqual([{ outcome: 'allowed', caller: 'key' }]);
  });

  it('when the request has no valid key, then it is charged once to the anonymous budget and goes on with its refusal for authorize', async () => {
    const identityRefusal = new ApiError('unauthorized', 'The API key is invalid or has been revoked.');
    const app = appWith({ identityRefusal });
    const res = await request(app).get('/v1/pets').expect(200);
    expect(res.body).toMatchObject({ identityRefusal: { code: 'unauthorized' } });
    expect(res.headers).toMatchObject({ 'x-ratelimit-limit': String(ANON_PER_MINUTE), 'x-ratelimit-remaining': String(ANON_PER_MINUTE - 1) });
    expect(decisions).toEqual([{ outcome: 'allowed', caller: 'anonymous' }]);
    expect(keyDecisions).toEqual([]);
  });

  it('when the anonymous budget is spent, then 429 rate_limited says it is the limit for requests without a valid key', async () => {
    const app = appWith({});
    for (let i = 0; i < ANON_PER_MINUTE; i++) await request(app).get('/v1/pets').expect(200);
    const res = await request(app).get('/v1/pets').expect(429);
    expect(res.body).toEqual({
      code: 'rate_limited',
      status: 429,
      message: `Rate limit exceeded: the per-minute limit for requests without a valid API key is used up; retry after ${String(res.headers['retry-after'])} seconds.`,
    });
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
  });

  it("when a valid key's requests pass, then its address's anonymous budget is untouched", async () => {
    const keyed = appWith({ principal: principal(10) });
    for (let i = 0; i < ANON_PER_MINUTE + 1; i++) await request(keyed).get('/v1/pets').expect(200);
    expect((await request(appWith({})).get('/v1/pets').expect(200)).headers['x-ratelimit-remaining']).toBe(String(ANON_PER_MINUTE - 1));
  });

  it('when the limiter fails, then the answer is 500, never a 429', async () => {
    class BrokenLimiter extends MemoryLimiter {
      override consumeKey(): Promise<LimitDecision> {
        return Promise.reject(new Error('bug'));
      }
    }
    const res = await request(appWith({ principal: principal(5) }, { limiter: new BrokenLimiter({ threshold: 100, seconds: 60 }) })).get('/v1/pets').expect(500);
    expect(res.body).toMatchObject({ code: 'internal_error' });
  });
});
