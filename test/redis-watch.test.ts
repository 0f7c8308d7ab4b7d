import Redis from 'ioredis';
import { INSPECTION_CONNECTION_NAME, TestRedis } from './helpers/redis-server';

/**
 * `TestRedis.watchCommands`, on a real redis-server: what the request-cost tests (rate-limit-hot-path)
 * rely on to tell a gateway's request path from its job queues.
 */
let redis: TestRedis;
const clients: Redis[] = [];

async function named(name: string): Promise<Redis> {
  const client = new Redis({ host: '127.0.0.1', port: redis.port, connectionName: name, lazyConnect: true });
  clients.push(client);
  await client.connect();
  return client;
}

beforeAll(async () => {
  redis = await TestRedis.start();
});

afterAll(async () => {
  for (const client of clients) client.disconnect();
  await redis?.stop();
});

describe('watching the commands of each client', () => {
  it('when two named clients send commands, one of them a script, then each gets its own, the script\'s inner commands counted for the client that ran it, and the watch sees the last command without a pause', async () => {
    const requests = await named('watch:requests');
    const jobs = await named('watch:jobs');
    const watch = await redis.watchCommands();

    await requests.eval("redis.call('incr', KEYS[1]); return redis.call('get', KEYS[1])", 1, 'counter');
    await jobs.get('other');
    await jobs.eval("return redis.call('pttl', KEYS[1])", 1, 'other');
    await requests.set('last', '1');
    const seen = await watch.stop();

    expect(seen.of((name) => name === 'watch:requests')).toEqual({ sent: { eval: 1, set: 1 }, inScripts: { incr: 1, get: 1 } });
    expect(seen.of((name) => name === 'watch:jobs')).toEqual({ sent: { get: 1, eval: 1 }, inScripts: { pttl: 1 } });
    // The watch's own marker goes through the inspecting connection, apart from both.
    expect(seen.of((name) => name === INSPECTION_CONNECTION_NAME).sent).toEqual({ echo: 1 });
  });
});
