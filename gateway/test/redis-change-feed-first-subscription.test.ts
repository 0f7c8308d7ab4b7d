import { RedisChangeFeed } from '../src/accounts/redis-change-feed';
import { ClusterFeedSubscriber } from '../src/redis';
import type { ChangeEvent } from '../src/accounts/types';
import { freePort } from '../../tools/ports';
import { waitFor } from '../../test/helpers/ports';
import { useRedis } from './support/redis';

/**
 * A change feed whose first SUBSCRIBE fails: the cluster subscriber's first node refuses the
 * connection (as a node that timed out on a loaded machine does), so the subscription takes on the
 * next one. Until it has, the feed is not live, and once it is, the gateway may already have served
 * from what it read in between (it stops waiting for the feed after a while): listeners get a reset.
 */
describe('RedisChangeFeed whose first subscription fails', () => {
  const redis = useRedis();

  it('when the first node refuses the connection, then the feed is subscribed only once the next node answers, and listeners get a reset', async () => {
    const nowhere = await freePort();
    const subscriber = new ClusterFeedSubscriber(() => [
      { host: '127.0.0.1', port: nowhere },
      { host: '127.0.0.1', port: redis.server.port },
    ]);
    const feed = new RedisChangeFeed(subscriber, 'feed-first');
    try {
      const events: ChangeEvent[] = [];
      feed.onChange((event) => events.push(event));
      await feed.whenSubscribed();
      expect(subscriber.node?.port).toBe(redis.server.port);
      expect(subscriber.status).toBe('ready');
      await waitFor(() => events.length > 0, 10_000, 'the reset event');
      expect(events).toEqual([{ type: 'reset' }]);

      // Live: a write published now is heard.
      const publisher = await redis.connection();
      await publisher.publish('feed-first', JSON.stringify({ type: 'plan', plan: 'pro' }));
      await waitFor(() => events.length > 1, 10_000, 'the plan event');
      expect(events).toEqual([{ type: 'reset' }, { type: 'plan', plan: 'pro' }]);
    } finally {
      feed.close();
    }
  });

  it('when the subscriber is already subscribed as the feed starts, then no reset comes for that first connection', async () => {
    const subscriber = new ClusterFeedSubscriber(() => [{ host: '127.0.0.1', port: redis.server.port }]);
    await waitFor(() => subscriber.status === 'ready', 10_000, 'the subscriber ready');
    const feed = new RedisChangeFeed(subscriber, 'feed-started');
    try {
      const events: ChangeEvent[] = [];
      feed.onChange((event) => events.push(event));
      await feed.whenSubscribed();
      const publisher = await redis.connection();
      await publisher.publish('feed-started', JSON.stringify({ type: 'plan', plan: 'pro' }));
      await waitFor(() => events.length > 0, 10_000, 'the plan event');
      expect(events).toEqual([{ type: 'plan', plan: 'pro' }]);
    } finally {
      feed.close();
    }
  });

  it('when the cluster subscriber has channels to subscribe on a new connection, then it reads as ready only once they are subscribed and it says so', async () => {
    const subscriber = new ClusterFeedSubscriber(() => [{ host: '127.0.0.1', port: redis.server.port }]);
    // A channel known before the connection is ready: its SUBSCRIBE follows ioredis's 'ready', a round trip later.
    subscriber.subscribe('feed-status').catch(() => undefined);
    let announced = false;
    let readBeforeAnnounced = false;
    subscriber.on('ready', () => (announced = true));
    try {
      // Every turn of the event loop until the subscriber says 'ready': a feed made on any of them
      // must not take the 'ready' still to come for a reconnection.
      await new Promise<void>((resolve, reject) => {
        const deadline = Date.now() + 10_000;
        const poll = () => {
          if (subscriber.status === 'ready' && !announced) readBeforeAnnounced = true;
          if (announced) return resolve();
          if (Date.now() > deadline) return reject(new Error('the subscriber never said ready'));
          setImmediate(poll);
        };
        poll();
      });
      expect(readBeforeAnnounced).toBe(false);
      expect(subscriber.status).toBe('ready');
    } finally {
      subscriber.disconnect();
    }
  });
});
