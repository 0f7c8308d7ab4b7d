import { RedisAccountStore } from '../src/accounts/redis-account-store';
import type { ChangeEvent } from '../src/accounts/types';
import { generateApiKey, hashApiKey, newAccountId, newKeyId } from '../src/keys/api-key';
import { ClusterFeedSubscriber, connectCluster } from '../src/redis';
import { waitFor } from '../../test/helpers/ports';
import { TestRedisCluster } from '../../test/helpers/redis-cluster';
import type { TestRedis } from '../../test/helpers/redis-server';
import { accountStoreContract } from './account-store.contract';
import { CLUSTER_READY_WAIT_MS } from './support/redis';

/** The account store on a real three-master Redis Cluster: the same contract, one slot, a change feed that survives a master. */
let cluster: TestRedisCluster;

beforeAll(async () => {
  cluster = await TestRedisCluster.start();
}, 30_000);

afterAll(async () => {
  await cluster?.stop();
});

// A cluster relays PUBLISH to the other masters over its bus, asynchronously: a message an earlier
// test published can reach a node after this test's subscriber joined it (seen on a loaded CI
// machine). Each test's store gets a prefix, and so a channel, of its own, so it hears only its own.
let stores = 0;
const freshPrefix = () => `{gw-${++stores}}:`;

accountStoreContract('RedisAccountStore on Redis Cluster', async () => {
  await cluster.flushAll();
  const store = await RedisAccountStore.connect({ clusterNodes: cluster.addresses }, { prefix: freshPrefix(), waitMs: CLUSTER_READY_WAIT_MS });
  await store.whenSubscribed();
  return store;
});

const anAccount = () => ({ id: newAccountId(), name: 'A', plan: 'free' as const, perMinute: null, perDay: null, email: null, createdAt: '2026-01-01T00:00:00.000Z' });

describe('RedisAccountStore on Redis Cluster specifics', () => {
  it('when accounts, keys and plans are written, then every key of the store is in the one slot of the {gw} tag', async () => {
    await cluster.flushAll();
    const store = await RedisAccountStore.connect({ clusterNodes: cluster.addresses }, { waitMs: CLUSTER_READY_WAIT_MS });
    try {
      for (let i = 0; i < 5; i++) {
        const account = anAccount();
        await store.createAccount(account);
        await store.addKey({ id: newKeyId(), accountId: account.id, hash: hashApiKey(generateApiKey()), createdAt: account.createdAt, revokedAt: null });
      }
      await store.setPlan({ name: 'pro', perMinute: 1, perDay: 2 });
      const owner = await cluster.nodeForKey('{gw}:plans');
      const counts = await Promise.all(cluster.nodes.map((node) => node.client.dbsize()));
      // 5 accounts × (account, key set, key-set version, key, hash index) + plans + the listing
      // indexes (creation order, the plan's, search), all on the owner of {gw}'s slot.
      expect(counts).toEqual(cluster.nodes.map((node) => (node === owner ? 29 : 0)));
    } finally {
      await store.close();
    }
  });

  it('when the master the change feed listens to dies, then listeners get a reset at once and hear later writes through another master', async () => {
    const prefix = freshPrefix();
    const storeOwner = await cluster.nodeForKey(`${prefix}plans`);
    // The store's own master last, the other two first: the feed listens on a master that is not
    // the store's (a write must still find its master once the feed's is gone).
    const order = [...cluster.nodes.filter((node) => node !== storeOwner), storeOwner].map((node) => ({ host: '127.0.0.1', port: node.port }));
    const subscriber = new ClusterFeedSubscriber(() => order);
    const listening = new RedisAccountStore({ redis: await connectCluster(cluster.addresses, CLUSTER_READY_WAIT_MS), subscriber, prefix, ownsRedis: true });
    const writer = await RedisAccountStore.connect({ clusterNodes: cluster.addresses }, { prefix, waitMs: CLUSTER_READY_WAIT_MS });
    let victim: TestRedis | undefined;
    try {
      await listening.whenSubscribed();
      const events: ChangeEvent[] = [];
      listening.onChange((event) => events.push(event));
      await writer.setPlan({ name: 'business', perMinute: 5, perDay: 6 });
      await waitFor(() => events.length >= 1, 10_000, 'the first event');
      expect(events).toEqual([{ type: 'plan', plan: 'business' }]);
      // The feed is live where it listens now. Usually the first of the order; on a loaded machine
      // a first connection can time out and the feed moves on to the second, which is as good: the
      // victim is whichever it listens on, chosen once an event has come through it.
      victim = cluster.nodes.find((node) => node.port === subscriber.node?.port);
      expect(victim).toBeDefined();
      expect(victim).not.toBe(storeOwner);

      await victim!.stop();
      const killedAt = Date.now();
      await waitFor(() => events.some((event) => event.type === 'reset'), 30_000, 'a reset event').catch((error: Error) => {
        // What a failure here needs to be told apart: where the feed is and what its connection says.
        throw new Error(`${error.message}; the feed listens on ${subscriber.node?.port ?? 'no node'} (${subscriber.status}), the victim was ${victim!.port}, events ${JSON.stringify(events)}`);
      });
      // "At once": well before the cluster's own periodic slot refresh (5 s) could have noticed,
      // with seconds to spare for a loaded machine (the move itself takes milliseconds).
      expect(Date.now() - killedAt).toBeLessThan(4_000);
      expect(subscriber.node?.port).not.toBe(victim!.port);

      await writer.setPlan({ name: 'pro', perMinute: 7, perDay: 8 });
      await waitFor(() => events.some((event) => event.type === 'plan' && event.plan === 'pro'), 10_000, 'the plan event after the move');
      expect(events).toEqual([{ type: 'plan', plan: 'business' }, { type: 'reset' }, { type: 'plan', plan: 'pro' }]);
    } finally {
      await listening.close();
      await writer.close();
      await victim?.start(); // a no-op when it still runs
      await cluster.waitUntilOk();
    }
  }, 60_000);
});
