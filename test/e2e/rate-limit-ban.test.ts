import { sleep } from '../helpers/ports';
import { admin, createAccountWithKey, startSystem, type GatewayHandle, type SystemHandle } from '../helpers/system';
import { call, expectError, rateLimitOf, type Reply } from '../helpers/traffic';

/**
 * A key that keeps sending while refused is banned (BAN_THRESHOLD refusals within a minute) for
 * BAN_SECONDS; the ban is on the key, shared by every replica, and an operator can lift it.
 */
const BAN_SECONDS = 30;
let system: SystemHandle;
let a: GatewayHandle;
let b: GatewayHandle;

beforeAll(async () => {
  system = await startSystem({ redis: true, replicas: 2, gatewayEnv: { BAN_THRESHOLD: '3', BAN_SECONDS: String(BAN_SECONDS) } });
  [a, b] = [system.gateways[0]!, system.gateways[1]!];
});

afterAll(async () => {
  await system?.stop();
});

const pets = (gateway: GatewayHandle, key: string) => call(`${gateway.url}/v1/pets`, { key });

/** A ban's answer, its times read against when it arrived. */
function expectBanned(reply: Reply, maxSeconds = BAN_SECONDS): void {
  const nowMs = reply.receivedAt;
  expectError(reply, 429, 'temporarily_banned');
  const view = rateLimitOf(reply, nowMs);
  expect(view.remaining).toBe(0);
  expect(view.retryAfter).toBeGreaterThanOrEqual(maxSeconds - 2);
  expect(view.retryAfter).toBeLessThanOrEqual(maxSeconds);
  expect(Math.abs(view.reset - (nowMs / 1000 + view.retryAfter!))).toBeLessThanOrEqual(2);
}

describe('temporary bans (real processes, real Redis, two replicas)', () => {
  it('when a key keeps sending while limited, then it is banned at the threshold, only that key, on every replica, until an operator lifts the ban', async () => {
    const account = await createAccountWithKey(a.adminUrl, { plan: 'free', perMinute: 2 });
    const other = await admin<{ id: string; key: string }>(a.adminUrl, 'POST', `/admin/accounts/${account.accountId}/keys`);
    expect(other.status).toBe(201);

    // 2 accepted, then rate_limited until the threshold (3 refusals): the 3rd refusal is the first banned answer.
    const replies: Reply[] = [];
    for (let i = 0; i < 5; i++) replies.push(await pets(a, account.key));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 429, 429, 429]);
    expectError(replies[2]!, 429, 'rate_limited');
    expectError(replies[3]!, 429, 'rate_limited');
    expectBanned(replies[4]!);
    // Banned keys stay banned (and a banned answer does not extend the ban).
    expectBanned(await pets(a, account.key));

    // The ban is in Redis: the other replica, which never saw this key, refuses it as banned too.
    expectBanned(await pets(b, account.key));

    // The ban is on the key, not the account: the account's other key is only rate limited.
    const sibling = await pets(a, other.body.key);
    expectError(sibling, 429, 'rate_limited');
    expectError(await pets(b, other.body.key), 429, 'rate_limited');

    // An operator lifts it through replica A; both replicas let go of it within 1 s.
    const lifted = await admin(a.adminUrl, 'DELETE', `/admin/keys/${account.keyId}/ban`);
    expect(lifted.status).toBe(204);
    const liftedAt = Date.now();
    // A banned answer counts no refusal, so polling cannot re-ban the key; the first non-banned answer stops it.
    const firstUnbanned = async (gateway: GatewayHandle): Promise<Reply> => {
      for (;;) {
        const reply = await pets(gateway, account.key);
        if (reply.json?.['code'] !== 'temporarily_banned' || Date.now() - liftedAt > 1_500) return reply;
        await sleep(20);
      }
    };
    const [onB, onA] = [await firstUnbanned(b), await firstUnbanned(a)];
    expect(Date.now() - liftedAt).toBeLessThan(1_000);
    // Still over the account's minute window: back to plain rate limiting on both replicas.
    expectError(onB, 429, 'rate_limited');
    expectError(onA, 429, 'rate_limited');
  });
});
