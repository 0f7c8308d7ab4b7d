import { connectCluster, endConnection, type Cluster } from '../src/redis';
import { waitFor } from '../../test/helpers/ports';
import { CLUSTER_READY_WAIT_MS, useRedisCluster } from './support/redis';

/**
 * Opening and ending the gateway's Cluster connections (`connectCluster`, `endConnection`) where
 * ioredis 5.11 alone would leave them hanging:
 * - its `connect()` stays pending for good when its first ready check finds `cluster_state:fail`
 *   (a node may say so for a moment on a loaded machine): `connectCluster` waits for 'ready';
 * - it arms the next periodic slots refresh when the one in flight ends, on a closed client too (a
 *   timer every 5 s, forever: a test file once kept a worker alive with it): `endConnection` leaves
 *   no such timer.
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

/** Makes every node say `cluster_state:fail` (one slot served by nobody, and full coverage required), and undoes it. */
async function withClusterFailing(): Promise<() => Promise<void>> {
  const nodes = cluster.cluster.nodes;
  const slot = await cluster.cluster.slotOf('any-key');
  const owner = await cluster.cluster.nodeForKey('any-key');
  for (const node of nodes) await node.client.config('SET', 'cluster-require-full-coverage', 'yes');
  // The owner lets go first: a node's gossip carries the slots it serves, so an owner still holding
  // the slot gives it back to any node that had dropped it already, and that node stays ok for good
  // (seen in two suites side by side, where the gaps between these commands are long).
  for (const node of [owner, ...nodes.filter((n) => n !== owner)]) await node.client.cluster('DELSLOTS', slot);
  await waitFor(async () => (await Promise.all(nodes.map((node) => node.client.cluster('INFO')))).every((info) => String(info).includes('cluster_state:fail')), 60_000, 'cluster_state:fail on every node');
  return async () => {
    await owner.client.cluster('ADDSLOTS', slot);
    for (const node of nodes) await node.client.config('SET', 'cluster-require-full-coverage', 'no');
    await cluster.cluster.waitUntilOk(30_000);
  };
}

const clusterInfoCalls = async () => (await cluster.cluster.commandStats())['cluster|info'] ?? 0;

describe('opening a Redis Cluster connection', () => {
  it('when the first ready check finds cluster_state:fail, then connectCluster resolves with a ready connection once the cluster is ok (not after its whole wait)', async () => {
    const recover = await withClusterFailing();
    let client: Cluster | undefined;
    try {
      await cluster.cluster.resetStats();
      // A wait far beyond the test's own timeout: only 'ready' can end it in time.
      const connecting = connectCluster(cluster.cluster.addresses, 30 * 60_000).then((opened) => (client = opened));
      await waitFor(async () => (await clusterInfoCalls()) >= 1, 30_000, "ioredis's ready check (CLUSTER INFO)");
      expect(client).toBeUndefined();
      await recover();
      await connecting;
      expect(client?.status).toBe('ready');
      expect(await client?.set('after-recovery', '1')).toBe('OK');
    } finally {
      if (client) await endConnection(client);
      else await recover().catch(() => undefined);
    }
  }, 120_000);
});

describe('ending a Redis Cluster connection', () => {
  it('when ioredis is disconnected while it refreshes the slot map, then it arms another refresh on the closed client (what endConnection is for)', async () => {
    const client = await connectCluster(cluster.cluster.addresses, CLUSTER_READY_WAIT_MS);
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
    const client = await connectCluster(cluster.cluster.addresses, CLUSTER_READY_WAIT_MS);
    periodicRefreshNow(client);
    await endConnection(client, { graceful });
    expect([internals(client).isRefreshing, internals(client).slotsTimer]).toEqual([false, null]);
  });
});
