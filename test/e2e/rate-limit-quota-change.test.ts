import { expectChangedWithin } from '../helpers/propagation';
import { admin, createAccountWithKey, startSystem, type GatewayHandle, type SystemHandle } from '../helpers/system';
import { call, expectError, rateLimitOf, type Reply } from '../helpers/traffic';

/**
 * A plan change (PUT /admin/plans/{name}) or a per-account override (PATCH /admin/accounts/{id})
 * made through one replica takes effect on every replica within 1 s, without a restart, even where
 * the key was already resolved and cached.
 */
let system: SystemHandle;
let a: GatewayHandle;
let b: GatewayHandle;

beforeAll(async () => {
  system = await startSystem({ redis: true, replicas: 2 });
  [a, b] = [system.gateways[0]!, system.gateways[1]!];
});

afterEach(async () => {
  // The plan is shared by the whole Redis: put it back for the next test.
  if (a) await admin(a.adminUrl, 'PUT', '/admin/plans/free', { perMinute: 60, perDay: 1000 });
});

afterAll(async () => {
  await system?.stop();
});

const pets = (gateway: GatewayHandle, key: string) => call(`${gateway.url}/v1/pets`, { key });

/**
 * Sends a request to `gateway` every 100 ms until its X-RateLimit-Limit is `limit`; fails if a
 * request sent 1 s or more after `since` still reports another. Returns every reply, the matching
 * one last.
 *
 * "Within 1 s" is judged by when each request was sent (`expectChangedWithin`). 100 ms between requests, not 25: every one is counted, and the per-account test below
 * needs fewer than its 30 accepted before the new limit shows, on both replicas (at most 11 each).
 */
async function untilLimitIs(gateway: GatewayHandle, key: string, limit: number, since: number): Promise<Reply[]> {
  const replies: Reply[] = [];
  const reportsLimit = async () => {
    const reply = await pets(gateway, key);
    replies.push(reply);
    return rateLimitOf(reply).limit === limit;
  };
  await expectChangedWithin(since, 1_000, reportsLimit, `${gateway.url} reports X-RateLimit-Limit ${limit}`, { intervalMs: 100 });
  return replies;
}

describe('quota changes reach every replica (real processes, real Redis, two replicas)', () => {
  it('when the Free plan is set to 3/min through replica A, then within 1 s replica B reports X-RateLimit-Limit 3 and refuses the 4th request', async () => {
    const subject = await createAccountWithKey(a.adminUrl, { plan: 'free' });
    const probe = await createAccountWithKey(a.adminUrl, { plan: 'free' });
    // Replica B resolves and caches both keys under the old plan first.
    const before = await pets(b, subject.key);
    expect(before.status).toBe(200);
    expect(rateLimitOf(before).limit).toBe(60);
    expect(rateLimitOf(await pets(b, probe.key)).limit).toBe(60);

    const changed = await admin(a.adminUrl, 'PUT', '/admin/plans/free', { perMinute: 3, perDay: 1000 });
    expect(changed.status).toBe(200);
    // Another Free account watches for the change on B, so the subject's count stays exact whatever the delay.
    await untilLimitIs(b, probe.key, 3, Date.now());

    // The subject used 1 request under the old plan: 2 more are accepted, the 4th is refused.
    const replies = [before, await pets(b, subject.key), await pets(b, subject.key), await pets(b, subject.key)];
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(replies.slice(1, 3).map((r) => rateLimitOf(r))).toMatchObject([
      { limit: 3, remaining: 1 },
      { limit: 3, remaining: 0 },
    ]);
    expectError(replies[3]!, 429, 'rate_limited');
    expect(rateLimitOf(replies[3]!)).toMatchObject({ limit: 3, remaining: 0, policy: '"minute";q=3;w=60, "day";q=1000;w=86400' });
    // Replica A, where the change was made, applies it too.
    expectError(await pets(a, subject.key), 429, 'rate_limited');
  });

  it('when a per-account perMinute override is set through replica A, then within 1 s both replicas apply it', async () => {
    const LIMIT = 30;
    const { key, accountId } = await createAccountWithKey(a.adminUrl, { plan: 'free' });
    // Both replicas resolve and cache the key under the plan's 60/min first.
    const replies: Reply[] = [];
    for (const gateway of [a, b]) replies.push(await pets(gateway, key));
    expect(replies.map((r) => rateLimitOf(r).limit)).toEqual([60, 60]);

    const patched = await admin(a.adminUrl, 'PATCH', `/admin/accounts/${accountId}`, { perMinute: LIMIT });
    expect(patched.status).toBe(200);
    const patchedAt = Date.now();
    replies.push(...(await untilLimitIs(a, key, LIMIT, patchedAt)));
    replies.push(...(await untilLimitIs(b, key, LIMIT, patchedAt)));

    // The count carries over (requests made before the change still count), and the new limit is exact across both.
    const acceptedSoFar = replies.filter((r) => r.status === 200).length;
    expect(rateLimitOf(replies.at(-1)!).remaining).toBe(LIMIT - acceptedSoFar);
    for (let i = 0; replies.filter((r) => r.status === 429).length < 2; i++) replies.push(await pets(i % 2 === 0 ? a : b, key));
    expect(replies.filter((r) => r.status === 200).length).toBe(LIMIT);
    for (const refused of replies.filter((r) => r.status === 429)) {
      expectError(refused, 429, 'rate_limited');
      expect(rateLimitOf(refused)).toMatchObject({ limit: LIMIT, remaining: 0 });
    }
  });
});
