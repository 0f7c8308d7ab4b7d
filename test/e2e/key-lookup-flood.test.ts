import http from 'node:http';
import { generateApiKey } from '../../gateway/src/keys/api-key';
import { sleep } from '../helpers/ports';
import { createAccountWithKey, startSystem, type GatewayHandle, type SystemHandle } from '../helpers/system';
import { call, rateLimitOf, statusCounts, type Reply } from '../helpers/traffic';

/**
 * A flood of minted keys (well-formed, each new, all unknown) from one address at full speed, beside
 * a customer with a valid key on the same address (a NAT) whose key this replica has never seen:
 * the customer is never refused, and the store's look-ups per second stay bounded by the look-up
 * gate (the client's look-up budget, then the replica's queue rate). Real processes, a real Redis:
 * the look-ups are counted where they land, as EVAL calls in Redis (the key look-up is the one
 * EVAL the request path sends; the limiter's calls are EVALSHA).
 */
jest.setTimeout(120_000);

const FLOOD = 10_000;
const CONCURRENCY = 64;
const QUEUE_PER_SECOND = 500;
const LOOKUPS_PER_MINUTE = 120;

let system: SystemHandle;
let gateway: GatewayHandle;

beforeAll(async () => {
  system = await startSystem({ redis: true, gatewayEnv: { KEY_LOOKUP_QUEUE_PER_SECOND: String(QUEUE_PER_SECOND), KEY_LOOKUPS_PER_MINUTE: String(LOOKUPS_PER_MINUTE) } });
  gateway = system.gateways[0]!;
}, 60_000);

afterAll(async () => {
  await system?.stop();
});

/** `count` requests with fresh minted keys over `CONCURRENCY` keep-alive connections, as fast as answers come. */
async function flood(url: string, count: number): Promise<Record<number, number>> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const statuses: Record<number, number> = {};
  let sent = 0;
  const one = () =>
    new Promise<number>((resolve) => {
      const req = http.get(`${url}/v1/pets`, { agent, headers: { authorization: `Bearer ${generateApiKey()}` } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', () => resolve(0));
    });
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (sent < count) {
        sent++;
        const status = await one();
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  agent.destroy();
  return statuses;
}

/** Redis's EVAL count, sampled every 250 ms until stopped. */
function sampleLookups() {
  const samples: { at: number; evals: number }[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const stats = await system.redis!.commandStats();
      samples.push({ at: performance.now(), evals: stats['eval'] ?? 0 });
      await sleep(250);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return samples;
    },
  };
}

/** The most look-ups in any 1-second span between samples. */
function peakPerSecond(samples: { at: number; evals: number }[]): number {
  let peak = 0;
  for (let i = 0; i < samples.length; i++) {
    for (let j = i + 1; j < samples.length && samples[j]!.at - samples[i]!.at <= 1_000; j++) peak = Math.max(peak, samples[j]!.evals - samples[i]!.evals);
  }
  return peak;
}

describe('a flood of minted keys beside a valid client on the same address', () => {
  it('when 10,000 distinct well-formed keys arrive at full speed, then the valid client is never refused and the store sees a bounded number of look-ups per second', async () => {
    // A business account (1,000/min): the customer's own limit is not what this test is about.
    const customer = await createAccountWithKey(gateway.adminUrl, { plan: 'business' });
    await system.redis!.resetStats();
    const sampler = sampleLookups();
    const started = performance.now();

    let flooding = true;
    const flooded = flood(gateway.url, FLOOD).finally(() => (flooding = false));
    await sleep(300); // the flood has used the address's budgets: the customer's first request comes in the thick of it
    const customerReplies: Reply[] = [];
    while (flooding) {
      const reply = await call(`${gateway.url}/v1/pets`, { key: customer.key });
      customerReplies.push(reply);
      if (reply.status === 200) expect(rateLimitOf(reply).limit).toBe(1_000); // checked on arrival: Reset is read against now
      await sleep(50);
    }
    const floodStatuses = await flooded;
    const seconds = (performance.now() - started) / 1_000;
    const samples = await sampler.stop();
    const lookups = samples[samples.length - 1]!.evals - samples[0]!.evals;
    const peak = peakPerSecond(samples);
    const slowestCustomerMs = Math.max(...customerReplies.map((r) => r.ms));
    console.info(
      `minted-key flood: ${FLOOD} requests in ${seconds.toFixed(1)} s (${floodStatuses[429] ?? 0} × 429, ${floodStatuses[401] ?? 0} × 401); ` +
        `store look-ups ${lookups} (peak ${peak}/s, mean ${(lookups / seconds).toFixed(0)}/s); customer: ${customerReplies.length} requests, ` +
        `statuses ${JSON.stringify(statusCounts(customerReplies))}, first ${customerReplies[0]?.ms.toFixed(0)} ms, slowest ${slowestCustomerMs.toFixed(0)} ms`,
    );

    // The customer: every request 200 with its account's headers, none refused for the flood.
    expect(customerReplies.length).toBeGreaterThan(10);
    expect(statusCounts(customerReplies)).toEqual({ 200: customerReplies.length });
    // The flood: unknown keys, refused as anonymous (401 within the anonymous limit, then 429); no 5xx, nothing dropped.
    expect(Object.keys(floodStatuses).sort()).toEqual(['401', '429']);
    // The anonymous limit (60 a minute) lets 60 through to their 401, once per minute the flood
    // spans; on a machine loaded enough for Redis to miss the limiter's 250 ms deadline, the
    // gateway counts in process meanwhile (ADR 0003's fallback) and may let one more minute's worth
    // through. The exact limit is the rate-limit tests' concern; here, the flood stays refused.
    expect(floodStatuses[401]).toBeGreaterThanOrEqual(60);
    expect(floodStatuses[401]).toBeLessThanOrEqual(60 * (Math.ceil(seconds / 60) + 1));
    // The store: the client's look-up budget and one second of queue at once, then the queue's rate
    // (a few EVALs a second of ops flushes ride along).
    expect(peak).toBeLessThanOrEqual(LOOKUPS_PER_MINUTE + 2 * QUEUE_PER_SECOND + 20);
    expect(lookups).toBeLessThanOrEqual(LOOKUPS_PER_MINUTE + QUEUE_PER_SECOND * (seconds + 1) + 5 * seconds);
  });
});
