import { sleep, waitFor } from '../helpers/ports';
import { createAccountWithKey, startSystem, type GatewayHandle, type SystemHandle } from '../helpers/system';
import { burst, call, expectError, rateLimitOf, sequence, statusCounts, type Reply } from '../helpers/traffic';

/**
 * The pets-service frozen (SIGSTOP): its port still accepts connections (the kernel does that) and
 * nothing answers. The gateway answers 504 `gateway_timeout` after UPSTREAM_TIMEOUT_MS, with the
 * rate-limit headers, and serves 200 again as soon as the service runs again (SIGCONT).
 */
const UPSTREAM_TIMEOUT_MS = 800;
let system: SystemHandle;
let gateway: GatewayHandle;

beforeAll(async () => {
  system = await startSystem({ gatewayEnv: { UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS) } });
  gateway = system.gateways[0]!;
}, 60_000);

afterAll(async () => {
  const pid = system?.pets.child.pid;
  if (pid) process.kill(pid, 'SIGCONT');
  await system?.stop();
});

describe('the pets-service frozen (SIGSTOP, then SIGCONT)', () => {
  it('when it stops answering, then 504 gateway_timeout after UPSTREAM_TIMEOUT_MS; when it runs again, then 200 again', async () => {
    const { key } = await createAccountWithKey(gateway.adminUrl, { plan: 'business' });
    const arrivedAt = new Map<Reply, number>();
    const noted = async (reply: Promise<Reply>) => {
      const done = await reply;
      arrivedAt.set(done, Date.now()); // the headers' Reset is checked against the time the answer came
      return done;
    };
    const get = () => noted(call(`${gateway.url}/v1/pets`, { key }));
    const post = () => noted(call(`${gateway.url}/v1/pets`, { key, method: 'POST', body: { name: 'Frozen', categoryId: 1 } }));
    expect((await get()).status).toBe(200); // a pooled keep-alive connection now exists

    process.kill(system.pets.child.pid!, 'SIGSTOP');
    try {
      const replies = [...(await burst(4, get)), ...(await burst(2, post)), ...(await sequence(2, get))];
      for (const reply of replies) {
        expectError(reply, 504, 'gateway_timeout');
        expect(rateLimitOf(reply, arrivedAt.get(reply)).limit).toBe(1_000);
        expect(reply.ms).toBeGreaterThanOrEqual(UPSTREAM_TIMEOUT_MS - 50);
        expect(reply.ms).toBeLessThan(UPSTREAM_TIMEOUT_MS + 1_500);
      }
    } finally {
      process.kill(system.pets.child.pid!, 'SIGCONT');
    }

    const resumedAt = Date.now();
    await waitFor(async () => (await get()).status === 200, 5_000, 'a 200 after SIGCONT');
    const recoveredMs = Date.now() - resumedAt;
    await sleep(100);
    const after = await sequence(10, get);
    expect({ statuses: statusCounts(after), recoveredWithin2s: recoveredMs < 2_000 }).toEqual({ statuses: { 200: 10 }, recoveredWithin2s: true });
    expect((await post()).status).toBe(201);
  }, 30_000);
});
