import type { KeyUseRecords } from '../../src/accounts/account-store';
import { newKeyId } from '../../src/keys/api-key';

/** Keys' last use: the latest time of each key, written in batches. */
export function keyUseContract(store: KeyUseRecords): void {
  describe('key use', () => {
    it('when key uses are recorded, then the latest time of each is kept, an earlier one changing nothing', async () => {
      const [first, second, never] = [newKeyId(), newKeyId(), newKeyId()];
      await store.recordKeyUse(new Map([[first, 2_000], [second, 5_000]]));
      await store.recordKeyUse(new Map([[first, 3_000], [second, 4_000]]));
      expect(await store.keysLastUsed([first, second, never])).toEqual(new Map([[first, 3_000], [second, 5_000]]));
      expect(await store.keysLastUsed([])).toEqual(new Map());
    });
  });
}
