import { SCRIPT_INNER_COMMANDS } from '../../gateway/src/limits/script';
import { TestRedis } from '../helpers/redis-server';
import { createAccountWithKey, startSystem, type GatewayHandle, type SystemHandle } from '../helpers/system';
import { call, expectError, sequence } from '../helpers/traffic';

/**
 * What one request costs Redis, measured on a real gateway process: after the key is cached, an
 * accepted request is one EVALSHA (plus the commands the script runs inside Redis, which
 * commandstats counts too) and nothing else; a request of an account known to be over its limit
 * costs nothing at all.
 *
 * BAN_THRESHOLD is set high so the refused requests below never reach a ban (setting a ban is one
 * more Redis call, by design). OPS_FLUSH_INTERVAL_MS is set past the test's length: the ops usage
 * board and keys' last use reach Redis in one background call per interval, whatever the traffic,
 * never per request, and that call must not land inside a measurement.
 */
let system: SystemHandle;
let redis: TestRedis;
let gateway: GatewayHandle;

/** What this file's own inspection sends (INFO, CONFIG RESETSTAT), not the gateway. */
const INSPECTION = new Set(['info', 'config', 'config|resetstat']);

async function gatewayCommands(): Promise<Record<string, number>> {
  const stats = await redis.commandStats();
  return Object.fromEntries(Object.entries(stats).filter(([name]) => !INSPECTION.has(name)));
}

beforeAll(async () => {
  system = await startSystem({ redis: true, gatewayEnv: { BAN_THRESHOLD: '1000000', OPS_FLUSH_INTERVAL_MS: '60000' } });
  redis = system.redis!;
  gateway = system.gateways[0]!;
});

afterAll(async () => {
  await system?.stop();
});

const pets = (key: string) => call(`${gateway.url}/v1/pets`, { key });

describe('rate limiter hot path through a real gateway (real Redis commandstats)', () => {
  it('when N requests are accepted after the key cache is warm, then Redis receives exactly N EVALSHA and no other client command', async () => {
    const { key } = await createAccountWithKey(gateway.adminUrl, { plan: 'business' });
    // Warm-up: resolves and caches the key (store reads), loads the script, creates the minute counter.
    expect((await pets(key)).status).toBe(200);

    const N = 20;
    await redis.resetStats();
    const replies = await sequence(N, () => pets(key));
    expect(replies.every((r) => r.status === 200)).toBe(true);

    const stats = await gatewayCommands();
    expect(stats['evalsha']).toBe(N);
    // Everything else is what N script runs do inside Redis on existing minute and day counters
    // (TIME, GET + PTTL of the minute, GET of today's day counter, PTTL of the ban, INCR of both):
    // the gateway itself sent nothing but EVALSHA.
    expect(stats).toEqual({ evalsha: N, time: N, get: 2 * N, pttl: 2 * N, incr: 2 * N });
    expect(Object.keys(stats).every((name) => name === 'evalsha' || (SCRIPT_INNER_COMMANDS as readonly string[]).includes(name))).toBe(true);
  });

  it('when an account is over its limit, then further requests cost no Redis command at all until the reset', async () => {
    const { key } = await createAccountWithKey(gateway.adminUrl, { plan: 'free', perMinute: 3 });
    expect((await sequence(3, () => pets(key))).map((r) => r.status)).toEqual([200, 200, 200]);

    await redis.resetStats();
    const refused = await sequence(25, () => pets(key));
    for (const reply of refused) expectError(reply, 429, 'rate_limited');
    expect(await gatewayCommands()).toEqual({});
  });
});
