import { connectCluster, endConnection, type Cluster } from '../src/redis';
import { waitFor } from '../../test/helpers/ports';
import { useRedisCluster } from './support/redis';

/**
 * Ending a Cluster connection while ioredis refreshes its slot map: ioredis arms the next periodic
 * refresh when the one in flight ends, on the closed client too (a timer every 5 s, forever: a
 * test file once kept a worker alive with it). `endConnection` leaves no such timer.
 */
const cluster = useRedisCluster();

/** ioredis's own: the refresh, whether one is in flight, and the periodic refresh's timer. */
interface SlotsRefresh {
  isRefreshing: boolean;
  slotsTimer: NodeJS.Timeout | null;
}
const internals = (client: Cluster) => client as unknown as SlotsRefresh;

/** Runs the periodic refresh now, as its timer would (Node's own `_onTimeout`): a refresh in flight that re-arms the timer when it ends. */
function periodicRefreshNow(client: Cluster): void {
  const timer = internals(client).slotsTimer as unknown as { _onTimeout(): void } | null;
  if (!timer) throw new Error('no periodic slots refresh armed');
  timer._onTimeout();
  expect(internals(client).isRefreshing).toBe(true);
}

describe('ending a Redis Cluster connection', () => {
  it('when ioredis is disconnected while it refreshes the slot map, then it arms another refresh on the closed client (what endConnection is for)', async () => {
    const client = await connectCluster(cluster.cluster.addresses);
    periodicRefreshNow(client);
    client.disconnect();
    await waitFor(() => !internals(client).isRefreshing, 10_000, 'the refresh to end');
    try {
      expect(internals(client).slotsTimer).not.toBeNull();
    } finally {
      clearTimeout(internals(client).slotsTimer ?? undefined);
    }
  });

  it.each([true, false])('when endConnection (graceful: %s) ends it while it refreshes the slot map, then no refresh timer is left', async (graceful) => {
    const client = await connectCluster(cluster.cluster.addresses);
    periodicRefreshNow(client);
    await endConnection(client, { graceful });
    expect([internals(client).isRefreshing, internals(client).slotsTimer]).toEqual([false, null]);
  });
});
