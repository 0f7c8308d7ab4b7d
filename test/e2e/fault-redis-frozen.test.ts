import { sleep, waitFor } from '../helpers/ports';
import { createAccountWithKey, startSystem, type GatewayHandle, type SystemHandle } from '../helpers/system';
import { call, hasRateLimitHeaders, sequence, statusCounts, type Reply } from '../helpers/traffic';

/**
 * Redis frozen, not dead (SIGSTOP: a stuck disk, a paused VM, a long fork): its connections stay
 * open and nothing answers, so only the gateway's own deadlines protect a request. Under traffic: no
 * request waits a second, every answer is 200 or 429 with the rate-limit headers, and once Redis
 * runs again (SIGCONT) the gateway returns to it by itself and counts exactly again.
 */
let system: SystemHandle;
let gateway: GatewayHandle;

beforeAll(async () => {
  system = await startSystem({ redis: true });
  gateway = system.gateways[0]!;
}, 60_000);

afterAll(async () => {
  const pid = system?.redis?.pid;
  if (pid) process.kill(pid, 'SIGCONT'); // never leave a stopped process behind a failed test
  await system?.stop();
});

interface Sample {
  phase: string;
  reply: Reply;
  /** Whether the reply carried well-formed rate-limit headers (checked when it arrived: Reset is read against now). */
  headers: boolean;
}

/** `workers` clients sending GET /v1/pets with `key` one after the other until stopped. */
function steadyTraffic(key: string, phase: () => string, workers = 3) {
  const samples: Sample[] = [];
  let running = true;
  const loops = Array.from({ length: workers }, async () => {
    while (running) {
      const current = phase();
      const reply = await call(`${gateway.url}/v1/pets`, { key });
      samples.push({ phase: current, reply, headers: hasRateLimitHeaders(reply) });
      await sleep(20);
    }
  });
  return {
    async stop(): Promise<Sample[]> {
      running = false;
      await Promise.all(loops);
      return samples;
    },
  };
}

const readiness = async () => (await call(`${gateway.url}/readyz`)).json?.['status'];

describe('Redis frozen under traffic (SIGSTOP, then SIGCONT)', () => {
  it('when Redis stops answering for seconds, then no request waits 1 s, every answer is 200 or 429 with headers, and counts are exact on Redis again after it resumes', async () => {
    const steady = await createAccountWithKey(gateway.adminUrl, { plan: 'business' });
    const small = await createAccountWithKey(gateway.adminUrl, { plan: 'free', perMinute: 5 });
    expect((await call(`${gateway.url}/v1/pets`, { key: small.key })).status).toBe(200); // verified, and 1 counted in Redis

    let phase = 'before';
    const traffic = steadyTraffic(steady.key, () => phase);
    await sleep(300);

    phase = 'frozen';
    process.kill(system.redis!.pid!, 'SIGSTOP');
    const frozenAt = Date.now();
    // Limits still hold while frozen (in-process, per replica): the 5/min account gets 5, then 429.
    const whileFrozen = await sequence(7, () => call(`${gateway.url}/v1/pets`, { key: small.key }));
    const smallSamples = whileFrozen.map((reply) => ({ phase, reply, headers: hasRateLimitHeaders(reply) }));
    expect(whileFrozen.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(await readiness()).toBe('degraded');
    await sleep(Math.max(0, 4_000 - (Date.now() - frozenAt)));

    phase = 'resumed';
    process.kill(system.redis!.pid!, 'SIGCONT');
    await waitFor(async () => (await readiness()) === 'ready', 5_000, 'readiness to report ready again');
    await sleep(300);
    const samples = [...(await traffic.stop()), ...smallSamples];

    const byPhase = (p: string) => samples.filter((s) => s.phase === p);
    expect(byPhase('frozen').length).toBeGreaterThan(20);
    // Nothing waits on the frozen Redis: under 1 s, or, on a machine so loaded that requests took
    // long before the freeze too, no more than 750 ms (the longest deadline, 500 ms, and some) past
    // the slowest of those.
    const slowestBefore = Math.max(...byPhase('before').map((s) => s.reply.ms));
    const bound = Math.max(1_000, slowestBefore + 750);
    const slow = samples.filter((s) => s.phase !== 'before' && s.reply.ms >= bound).map((s) => ({ phase: s.phase, ms: Math.round(s.reply.ms) }));
    expect({ slow, bound: Math.round(bound) }).toEqual({ slow: [], bound: Math.round(bound) });
    const statuses = Object.fromEntries(['before', 'frozen', 'resumed'].map((p) => [p, statusCounts(byPhase(p).map((s) => s.reply))]));
    expect(samples.filter((s) => s.reply.status !== 200 && s.reply.status !== 429).map((s) => ({ phase: s.phase, status: s.reply.status, code: s.reply.json?.['code'] }))).toEqual([]);
    expect({ statuses, withoutHeaders: samples.filter((s) => !s.headers).length }).toEqual({ statuses, withoutHeaders: 0 });

    // Exact on Redis again: a fresh 5/min account gets exactly 5, and Redis holds the count.
    const fresh = await createAccountWithKey(gateway.adminUrl, { plan: 'free', perMinute: 5 });
    const afterwards = await sequence(7, () => call(`${gateway.url}/v1/pets`, { key: fresh.key }));
    expect(afterwards.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(await system.redis!.client.get(`rl:{${fresh.accountId}}:minute`)).toBe('5');
  }, 60_000);
});
