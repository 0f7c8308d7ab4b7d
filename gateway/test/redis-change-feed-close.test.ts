import { RedisChangeFeed } from '../src/accounts/redis-change-feed';
import { createSubscriber, type Redis } from '../src/redis';
import { waitFor } from '../../test/helpers/ports';
import { TcpProxy } from '../../test/helpers/tcp-proxy';
import { useRedis } from './support/redis';

/**
 * A change feed closed while Redis has not yet answered the SUBSCRIBE that follows a reconnection:
 * every such SUBSCRIBE must have a holder, or its rejection ('Connection is closed.') is an
 * unhandled one, which the gateway's entry points log as a stray error. The proxy makes the window
 * certain: it drops Redis's answers from the moment the subscriber is back, so no SUBSCRIBE is
 * answered before the feed closes.
 */
describe('RedisChangeFeed closed right after a reconnection', () => {
  const redis = useRedis();
  let proxy: TcpProxy;
  let subscriber: Redis;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(async () => {
    proxy = await TcpProxy.start({ host: '127.0.0.1', port: redis.server.port });
    process.on('unhandledRejection', onUnhandled);
  });

  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    // Only if the test failed before the feed closed it: ioredis arms a 2 s timer for every disconnect.
    if (subscriber && subscriber.status !== 'end') subscriber.disconnect();
    await proxy.stop();
  });

  it('when the feed closes before Redis answers the resubscription, then no promise is rejected unhandled', async () => {
    subscriber = createSubscriber(proxy.urlThrough(redis.url));
    const feed = new RedisChangeFeed(subscriber, 'feed-close');
    await feed.whenSubscribed();
    expect(subscriber.status).toBe('ready');

    // 'ready' comes on the tick after the connection is back, and every SUBSCRIBE (ioredis's own, if
    // on, and the feed's) is written by then; answers arrive by I/O, so none can have been read yet.
    subscriber.once('ready', () => {
      proxy.holdAnswers();
      feed.close();
    });
    proxy.reset();
    await waitFor(() => subscriber.status === 'end', 5_000, 'the subscriber closed');
    // A rejection nobody holds is reported once the microtasks of its turn have run.
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled.map(String)).toEqual([]);
  });
});
