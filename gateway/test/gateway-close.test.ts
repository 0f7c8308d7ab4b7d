import { activeResources, addedResources as added } from '../../test/helpers/active-resources';
import { waitFor } from '../../test/helpers/ports';
import { createKey, publicGet, startGateway } from './support/gateway';
import { useRedis } from './support/redis';

/**
 * What a gateway on Redis holds must go with `close()`: a connection, a BullMQ worker or a timer
 * left behind keeps the process of a gateway told to stop (SIGTERM) alive.
 */
describe('Gateway.close() on Redis', () => {
  const redis = useRedis();

  it('when a gateway that served requests and ran a job is closed, then it leaves no socket, timer or worker behind', async () => {
    const before = activeResources();
    const gateway = await startGateway({ REDIS_URL: redis.url });
    const { key } = await createKey(gateway);
    expect((await publicGet(gateway, '/v1/pets', '203.0.113.7', key)).status).not.toBe(401);
    const ran: string[] = [];
    const queue = gateway.jobs.queue<string>('close-check', { handle: async (data) => void ran.push(data), retryDelaysMs: [] });
    await queue.add('one');
    await waitFor(() => ran.length === 1, 10_000, 'the job run');
    expect(added(before, activeResources())).not.toEqual([]);

    await gateway.close();
    // Sockets and the worker's blocking connection end asynchronously: wait for them, generously.
    await waitFor(() => added(before, activeResources()).length === 0, 10_000, 'every handle of the gateway released').catch(() => undefined);
    expect(added(before, activeResources())).toEqual([]);
  });
});
