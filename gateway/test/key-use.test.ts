import { MemoryAccountStore } from '../src/accounts/memory-account-store';
import { RedisAccountStore } from '../src/accounts/redis-account-store';
import { newKeyId } from '../src/keys/api-key';
import { KeyUseRecorder } from '../src/usage/key-use';
import { waitFor } from '../../test/helpers/ports';
import { useRedis } from './support/redis';

describe('KeyUseRecorder', () => {
  it('when uses are noted, then this replica reads them at once and the store gets them at the next flush, latest time kept', async () => {
    const store = new MemoryAccountStore();
    const recorder = new KeyUseRecorder({ store, flushIntervalMs: 60_000 });
    const [a, b] = [newKeyId(), newKeyId()];
    recorder.note(a, 1_000);
    recorder.note(a, 3_000);
    recorder.note(a, 2_000); // an earlier time noted late changes nothing
    recorder.note(b, 5_000);
    expect(await recorder.lastUsed([a, b])).toEqual(new Map([[a, 3_000], [b, 5_000]]));
    expect(await store.keysLastUsed([a, b])).toEqual(new Map());
    await recorder.flush();
    expect(await store.keysLastUsed([a, b])).toEqual(new Map([[a, 3_000], [b, 5_000]]));
    await recorder.close();
  });

  it('when the interval passes, then the uses reach the store by themselves', async () => {
    const store = new MemoryAccountStore();
    const recorder = new KeyUseRecorder({ store, flushIntervalMs: 100 });
    const key = newKeyId();
    recorder.note(key, 7_000);
    await waitFor(async () => (await store.keysLastUsed([key])).get(key) === 7_000, 2_000, 'the background flush');
    await recorder.close();
  });

  it('when more keys are used than may wait for a flush, then the extra ones wait for the next interval', async () => {
    const store = new MemoryAccountStore();
    const recorder = new KeyUseRecorder({ store, flushIntervalMs: 60_000, maxPending: 2 });
    const [a, b, c] = [newKeyId(), newKeyId(), newKeyId()];
    recorder.note(a, 1);
    recorder.note(b, 1);
    recorder.note(c, 1);
    recorder.note(a, 2);
    expect(await recorder.lastUsed([a, b, c])).toEqual(new Map([[a, 2], [b, 1]]));
    await recorder.close();
  });

  describe('on Redis', () => {
    const redis = useRedis();

    it('when Redis is down at a flush, then the uses are kept and sent once it is back; close flushes the rest', async () => {
      const store = await RedisAccountStore.connect(redis.url);
      const recorder = new KeyUseRecorder({ store, flushIntervalMs: 60_000 });
      const key = newKeyId();
      recorder.note(key, 4_000);
      await redis.server.stop();
      await expect(recorder.flush()).rejects.toMatchObject({ name: 'StoreUnavailableError' });
      recorder.note(key, 4_500);
      await redis.server.start();
      await waitFor(async () => (await store.keysLastUsed([key])).size === 0, 5_000, 'the store connection');
      await recorder.close();
      expect(await store.keysLastUsed([key])).toEqual(new Map([[key, 4_500]]));
      await store.close();
    });
  });
});
