import { freePort, waitFor } from '../../tools/ports';
import { connectRedis, createSubscriber, DISCONNECT_TIMEOUT_MS, type Redis } from './redis';

/**
 * A connection closed while Redis is unreachable: ioredis arms a timer at `disconnect()` that only
 * the socket's closing clears, and that socket has closed already. The timer must be short, or it
 * holds a closed gateway's process (ioredis's default: 2 s). Fake timers count it without waiting.
 */
describe('Redis connections closed while Redis is down', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  async function disconnectedWhileDown(open: (url: string) => Promise<Redis> | Redis): Promise<void> {
    // A free port nobody listens on: every connection attempt is refused.
    const client = await open(`redis://127.0.0.1:${await freePort()}`);
    await waitFor(() => client.status === 'reconnecting', 5_000, 'a refused connection');
    jest.useFakeTimers();
    client.disconnect();
    expect(jest.getTimerCount()).toBeGreaterThan(0);
    jest.advanceTimersByTime(DISCONNECT_TIMEOUT_MS);
    expect(jest.getTimerCount()).toBe(0);
  }

  it('when the command connection is closed, then no timer of it outlives DISCONNECT_TIMEOUT_MS', async () => {
    await disconnectedWhileDown((url) => connectRedis(url, 50));
  });

  it('when the change feed subscriber is closed, then no timer of it outlives DISCONNECT_TIMEOUT_MS', async () => {
    await disconnectedWhileDown(createSubscriber);
  });
});
