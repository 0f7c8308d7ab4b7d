import { PortalVisitor } from '../../gateway/test/support/portal-visitor';
import { sleep, waitFor } from '../helpers/ports';
import { admin, createAccountWithKey, startSystem, type GatewayHandle, type SystemHandle } from '../helpers/system';
import { call, hasRateLimitHeaders, statusCounts, type Reply } from '../helpers/traffic';

/**
 * The stale-if-error safety net of the key caches, through real processes and a real Redis that
 * dies: a key the gateway verified a moment ago keeps working while the account store is gone,
 * whatever happened to other accounts just before (a sign-up, an ops change, a plan change).
 * Each case kills Redis 300 ms after the unrelated change, as an operator saw it happen.
 */
let system: SystemHandle;
let gateway: GatewayHandle;

beforeAll(async () => {
  system = await startSystem({ redis: true });
  gateway = system.gateways[0]!;
}, 60_000);

afterAll(async () => {
  await system?.stop();
});

const getPets = (key: string) => call(`${gateway.url}/v1/pets`, { key });
const readiness = async () => (await call(`${gateway.url}/readyz`)).json?.['status'];

/** A Pro key the gateway has just verified (one accepted request), on a Redis that is up. */
async function verifiedProKey(): Promise<string> {
  await waitFor(async () => (await readiness()) === 'ready', 10_000, 'the gateway back on Redis');
  const { key } = await createAccountWithKey(gateway.adminUrl, { plan: 'pro' });
  expect((await getPets(key)).status).toBe(200);
  return key;
}

/** Sends the key a few times over ~1 s with Redis down; notes which answers lacked the Pro account's headers (checked on arrival). */
async function whileRedisIsDown(key: string): Promise<{ replies: Reply[]; withoutProHeaders: number }> {
  const replies: Reply[] = [];
  let withoutProHeaders = 0;
  for (let i = 0; i < 8; i++) {
    const reply = await getPets(key);
    replies.push(reply);
    if (!hasRateLimitHeaders(reply) || reply.headers['x-ratelimit-limit'] !== '300') withoutProHeaders++;
    await sleep(120);
  }
  return { replies, withoutProHeaders };
}

async function outageAfter(unrelatedChange: () => Promise<void>): Promise<{ replies: Reply[]; withoutProHeaders: number }> {
  const key = await verifiedProKey();
  await unrelatedChange();
  await sleep(300);
  await system.redis!.stop();
  try {
    return await whileRedisIsDown(key);
  } finally {
    await system.redis!.start(); // empty (no persistence): the next case starts afresh
  }
}

function expectServed({ replies, withoutProHeaders }: { replies: Reply[]; withoutProHeaders: number }): void {
  expect({ statuses: statusCounts(replies), codes: replies.filter((r) => r.status !== 200).map((r) => r.json?.['code']), withoutProHeaders }).toEqual({
    statuses: { 200: replies.length },
    codes: [],
    withoutProHeaders: 0,
  });
}

describe('keys verified before a Redis outage (real processes, Redis killed)', () => {
  it('when nothing else happened, then the known key keeps working (the baseline)', async () => {
    expectServed(await outageAfter(async () => undefined));
  });

  it('when an unrelated account was created through the ops API just before, then the known key still gets 200', async () => {
    expectServed(
      await outageAfter(async () => {
        expect((await admin(gateway.adminUrl, 'POST', '/admin/accounts', { name: 'unrelated', plan: 'free' })).status).toBe(201);
      }),
    );
  });

  it('when someone signed up in the portal just before, then the known key still gets 200', async () => {
    expectServed(
      await outageAfter(async () => {
        const visitor = new PortalVisitor(gateway.url, `127.0.0.1:${gateway.port}`);
        const response = await visitor.signUp(`someone.${Date.now()}@example.com`);
        expect(response.status).toBe(303);
      }),
    );
  });

  it("when another account's quotas and another plan changed just before, then the known key still gets 200", async () => {
    expectServed(
      await outageAfter(async () => {
        const other = await createAccountWithKey(gateway.adminUrl, { plan: 'free' });
        expect((await getPets(other.key)).status).toBe(200);
        expect((await admin(gateway.adminUrl, 'PATCH', `/admin/accounts/${other.accountId}`, { perMinute: 30 })).status).toBe(200);
        expect((await admin(gateway.adminUrl, 'PUT', '/admin/plans/business', { perMinute: 1_100, perDay: 110_000 })).status).toBe(200);
      }),
    );
  });
});
