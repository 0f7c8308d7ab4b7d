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
  system = await startSystem({ redis: true, redisDeadline: 'product' });
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

  it('when REDIS_TIMEOUT_MS is raised to 1500, then a request waits that long on a frozen Redis before counting in process, and a key lookup twice that before 503', async () => {
    const patient = await system.startGateway({ REDIS_TIMEOUT_MS: '1500' });
    const known = await createAccountWithKey(patient.adminUrl, { plan: 'business' });
    const unseen = await createAccountWithKey(patient.adminUrl, { plan: 'business' });
    expect((await call(`${patient.url}/v1/pets`, { key: known.key })).status).toBe(200); // verified on this replica
    const pid = system.redis!.pid!;
    process.kill(pid, 'SIGSTOP');
    try {
      // Lower bounds only: however slow the machine, neither answer can come before its deadline.
      const counted = await call(`${patient.url}/v1/pets`, { key: known.key });
      expect({ status: counted.status, waited: counted.ms >= 1_500 }).toEqual({ status: 200, waited: true });
      const lookedUp = await call(`${patient.url}/v1/pets`, { key: unseen.key });
      expect({ status: lookedUp.status, code: lookedUp.json?.['code'], waited: lookedUp.ms >= 3_000 }).toEqual({ status: 503, code: 'service_unavailable', waited: true });
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await waitFor(async () => (await call(`${patient.url}/readyz`)).json?.['status'] === 'ready', 10_000, 'the patient replica back on Redis');
  }, 60_000);
});
