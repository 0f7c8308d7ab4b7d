import { PortTakenError, TestRedis } from './helpers/redis-server';

/**
 * `TestRedis`, the redis-server each test file owns: it must be the server the test talks to. Two
 * suites side by side once shared one when a port was taken between `freePort()` and the bind; the
 * other suite's redis-server answered the ping, and each flushed the other's keys.
 */
let held: TestRedis;

beforeAll(async () => {
  held = await TestRedis.start();
  await held.client.set('owner', 'the first suite');
});

afterAll(async () => {
  await held?.stop();
});

describe('a test redis-server on a port another process holds', () => {
  it('when started on a port a redis-server of another test holds, then it refuses with PortTakenError and leaves that server and its keys alone', async () => {
    await expect(TestRedis.start({ port: held.port })).rejects.toThrow(PortTakenError);
    await expect(TestRedis.start({ port: held.port })).rejects.toThrow(`redis-server could not listen on port ${held.port}: another process holds it`);
    expect(await held.client.get('owner')).toBe('the first suite');
  });

  it('when started without a port, then the server it talks to is its own child, not any other on the machine', async () => {
    const own = await TestRedis.start();
    try {
      expect(own.port).not.toBe(held.port);
      const info = await own.client.info('server');
      expect(Number(/\bprocess_id:(\d+)/.exec(info)?.[1])).toBe(own.pid);
    } finally {
      await own.stop();
    }
  });

  it('when its arguments make redis-server exit as it starts, then the error carries what it logged, not a timeout', async () => {
    await expect(TestRedis.start({ args: ['--maxmemory-policy', 'no-such-policy'] })).rejects.toThrow(/exited as it started: .*maxmemory-policy/s);
  });
});
