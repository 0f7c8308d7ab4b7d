import { createAccountWithKey, startSystem, type SystemHandle } from '../helpers/system';
import { burst, call, expectError, rateLimitOf, statusCounts, type Reply } from '../helpers/traffic';

/**
 * The minute window is exact under concurrency, over real HTTP against real processes: the
 * counting happens in one atomic step in Redis, so neither concurrent requests on one replica
 * nor requests spread over two replicas can get past the quota.
 */
let system: SystemHandle;

beforeAll(async () => {
  system = await startSystem({ redis: true, replicas: 2 });
});

afterAll(async () => {
  await system?.stop();
});

/** Global fetch underneath (see `call`). */
function getPets(baseUrl: string, key: string): Promise<Reply> {
  return call(`${baseUrl}/v1/pets`, { key });
}

/**
 * Whether a replica logged a switch to in-process limiting: counts start from zero there, so the
 * quota is exceeded by design. Asserted beside the counts, so such a failure says why.
 */
function fellBackToInProcess(): boolean {
  return system.gateways.some((g) => g.process.output.includes('limiting in-process'));
}

function expectEvery429IsRateLimited(replies: Reply[]): void {
  for (const reply of replies.filter((r) => r.status === 429)) {
    expectError(reply, 429, 'rate_limited');
    expect(Number(reply.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(reply.headers['retry-after']).toMatch(/^\d+$/);
    const view = rateLimitOf(reply);
    expect(view).toMatchObject({ limit: 60, remaining: 0 });
  }
}

describe('rate limit exactness (real processes, real Redis)', () => {
  it('when a Free account sends 100 concurrent GET /v1/pets through one gateway, then exactly 60 are answered 200 and 40 are answered 429 rate_limited', async () => {
    const { key } = await createAccountWithKey(system.gateways[0]!.adminUrl, { plan: 'free' });

    const replies = await burst(100, () => getPets(system.gateways[0]!.url, key));

    expect({ counts: statusCounts(replies), fellBackToInProcess: fellBackToInProcess() }).toEqual({ counts: { 200: 60, 429: 40 }, fellBackToInProcess: false });
    expectEvery429IsRateLimited(replies);
    // Every accepted request took its own unit: the remaining counts are 59..0, each exactly once.
    const remaining = replies.filter((r) => r.status === 200).map((r) => Number(r.headers['x-ratelimit-remaining']));
    expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i));
  });

  it('when a Free account sends 100 concurrent GET /v1/pets alternating between two replicas that share Redis, then exactly 60 are accepted in total', async () => {
    const { key } = await createAccountWithKey(system.gateways[0]!.adminUrl, { plan: 'free' });

    const replies = await burst(100, (i) => getPets(system.gateways[i % 2]!.url, key));

    expect({ counts: statusCounts(replies), fellBackToInProcess: fellBackToInProcess() }).toEqual({ counts: { 200: 60, 429: 40 }, fellBackToInProcess: false });
    expectEvery429IsRateLimited(replies);
    const remaining = replies.filter((r) => r.status === 200).map((r) => Number(r.headers['x-ratelimit-remaining']));
    expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    // Both replicas really took part.
    const acceptedBy = [0, 1].map((replica) => replies.filter((r, i) => i % 2 === replica && r.status === 200).length);
    expect(acceptedBy.every((n) => n > 0)).toBe(true);
  });
});
