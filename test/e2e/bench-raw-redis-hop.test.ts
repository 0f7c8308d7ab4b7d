import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BenchProcess, COMPILED } from '../../bench/processes';
import { freePort } from '../../tools/ports';
import { TestRedis } from '../../tools/redis-server';

/**
 * The bench's bare-socket yardstick (`bench/express-hop-raw-redis.ts`) when its Redis connection is
 * cut: every request answers (an error from Express), none hangs. Before, the commands a cut
 * connection still waited for were never settled, and an instruction count under valgrind (where a
 * reply outlasted the yardstick's deadline, which cuts the connection) waited for them forever.
 */
describe('the bare-socket round-trip hop', () => {
  let redis: TestRedis | undefined;
  let hop: BenchProcess | undefined;
  let pets: http.Server | undefined;

  afterEach(async () => {
    await hop?.stop();
    await redis?.stop();
    await new Promise((resolve) => (pets ? pets.close(resolve) : resolve(undefined)));
  });

  it('when its Redis goes away, then the requests waiting and those after are answered with an error, not left hanging', async () => {
    redis = await TestRedis.start();
    // The pets-service's stand-in: the hop proxies there once its round trip is done.
    pets = http.createServer((_req, res) => res.end('{"data":[]}'));
    await new Promise<void>((resolve) => pets!.listen(0, '127.0.0.1', resolve));
    const port = await freePort();
    hop = BenchProcess.start('express-hop-raw-redis', COMPILED.expressHopRawRedis, {
      BARE_HOP_PORT: String(port),
      PETS_URL: `http://127.0.0.1:${(pets.address() as AddressInfo).port}`,
      INTERNAL_JWT_SECRET: 'x'.repeat(32),
      REDIS_URL: redis.url,
    });
    const url = `http://127.0.0.1:${port}/v1/pets`;
    await hop.ready(url, (response) => response.status === 200, 60_000);

    await redis.stop();
    // A generous deadline: a hang is what this looks for, not a speed.
    const statuses = await Promise.all(Array.from({ length: 5 }, async () => (await fetch(url, { signal: AbortSignal.timeout(30_000) })).status));
    expect(statuses).toEqual([500, 500, 500, 500, 500]);
    expect((await fetch(url, { signal: AbortSignal.timeout(30_000) })).status).toBe(500);
    expect(hop.running).toBe(true);
  }, 120_000);
});
