import { waitFor } from '../../test/helpers/ports';
import type { CrossingMarks } from '../src/events/crossing-marks';

/**
 * The behaviour every CrossingMarks must have, run by crossing-marks.test.ts against the in-process
 * marks, Redis and Redis Cluster. `open` gives fresh, empty marks; opened twice, the two share what
 * they mark (two replicas on one store), except in process, where `shared` is false.
 */
export function crossingMarksContract(name: string, open: () => Promise<CrossingMarks>, { shared }: { shared: boolean }): void {
  describe(`${name} (CrossingMarks contract)`, () => {
    const opened: CrossingMarks[] = [];
    const marks = async () => {
      const made = await open();
      opened.push(made);
      return made;
    };
    afterEach(async () => {
      for (const made of opened.splice(0)) await made.close();
    });
    const later = () => Date.now() + 60_000;

    it('when a threshold is marked twice on a day, then only the first mark wins; another threshold, account or day is a mark of its own', async () => {
      const store = await marks();
      expect(await store.markOnce('acct_1', 80, '2026-11-26', later())).toBe(true);
      expect(await store.markOnce('acct_1', 80, '2026-11-26', later())).toBe(false);
      expect(await store.markOnce('acct_1', 100, '2026-11-26', later())).toBe(true);
      expect(await store.markOnce('acct_2', 80, '2026-11-26', later())).toBe(true);
      expect(await store.markOnce('acct_1', 80, '2026-11-27', later())).toBe(true);
      expect(await store.markOnce('acct_1', 100, '2026-11-27', later())).toBe(true);
    });

    it('when ten requests mark one threshold at once, then exactly one wins', async () => {
      const store = await marks();
      const won = await Promise.all(Array.from({ length: 10 }, () => store.markOnce('acct_1', 100, '2026-11-26', later())));
      expect(won.filter(Boolean)).toHaveLength(1);
    });

    it('when a mark expires, then the threshold can be marked again', async () => {
      const store = await marks();
      expect(await store.markOnce('acct_3', 80, '2026-11-26', Date.now() + 50)).toBe(true);
      // However slow the machine, the 50 ms pass: the mark is won again within seconds.
      await waitFor(() => store.markOnce('acct_3', 80, '2026-11-26', later()), 10_000, 'the short mark to expire');
      expect(await store.markOnce('acct_3', 80, '2026-11-26', later())).toBe(false);
    });

    if (!shared) return;

    it('when two replicas mark the same threshold, then only one of them wins it', async () => {
      const [first, second] = [await marks(), await marks()];
      const won = await Promise.all([first.markOnce('acct_4', 80, '2026-11-26', later()), second.markOnce('acct_4', 80, '2026-11-26', later())]);
      expect(won.sort()).toEqual([false, true]);
      expect(await second.markOnce('acct_4', 100, '2026-11-26', later())).toBe(true);
      expect(await first.markOnce('acct_4', 100, '2026-11-26', later())).toBe(false);
    });
  });
}
