import { isJobQueueConnection } from '../../gateway/src/jobs/bullmq-queues';
import { SCRIPT_INNER_COMMANDS } from '../../gateway/src/limits/script';
import { CONNECTION_NAMES } from '../../gateway/src/redis';
import { INSPECTION_CONNECTION_NAME, TestRedis, type WatchedCommands } from '../helpers/redis-server';
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
 * never per request, and that call must not land inside a measurement. The gateway's job queues
 * (BullMQ) poll Redis on timers of their own on connections of their own (a worker's BZPOPMIN, the
 * stalled-job check): the counts are by connection (MONITOR, named clients), and theirs are left out.
 */
let system: SystemHandle;
let redis: TestRedis;
let gateway: GatewayHandle;

/** What the gateway's request path sent, and what any other connection but its job queues' and this file's sent. */
function split(seen: WatchedCommands) {
  return {
    requestPath: seen.of((name) => name === CONNECTION_NAMES.requests),
    otherwise: seen.of((name) => name !== CONNECTION_NAMES.requests && name !== INSPECTION_CONNECTION_NAME && !isJobQueueConnection(name)),
  };
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

describe('rate limiter hot path through a real gateway (real Redis, commands counted by connection)', () => {
  it('when N requests are accepted after the key cache is warm, then Redis receives exactly N EVALSHA and no other client command', async () => {
    const { key } = await createAccountWithKey(gateway.adminUrl, { plan: 'business' });
    // Warm-up: resolves and caches the key (store reads), loads the script, creates the minute counter.
    expect((await pets(key)).status).toBe(200);

    const N = 20;
    const watch = await redis.watchCommands();
    const replies = await sequence(N, () => pets(key));
    expect(replies.every((r) => r.status === 200)).toBe(true);

    const { requestPath, otherwise } = split(await watch.stop());
    // The gateway sent nothing but EVALSHA; inside Redis, N script runs on existing minute and day
    // counters (TIME, GET + PTTL of the minute, GET of today's day counter, PTTL of the ban, INCR of both).
    expect(requestPath.sent).toEqual({ evalsha: N });
    expect(requestPath.inScripts).toEqual({ time: N, get: 2 * N, pttl: 2 * N, incr: 2 * N });
    expect(Object.keys(requestPath.inScripts).every((name) => (SCRIPT_INNER_COMMANDS as readonly string[]).includes(name))).toBe(true);
    expect(otherwise).toEqual({ sent: {}, inScripts: {} });
  });

  it('when an account is over its limit, then further requests cost no Redis command at all until the reset', async () => {
    const { key } = await createAccountWithKey(gateway.adminUrl, { plan: 'free', perMinute: 3 });
    expect((await sequence(3, () => pets(key))).map((r) => r.status)).toEqual([200, 200, 200]);

    const watch = await redis.watchCommands();
    const refused = await sequence(25, () => pets(key));
    for (const reply of refused) expectError(reply, 429, 'rate_limited');
    const { requestPath, otherwise } = split(await watch.stop());
    expect(requestPath).toEqual({ sent: {}, inScripts: {} });
    expect(otherwise).toEqual({ sent: {}, inScripts: {} });
  });
});
