import { MemoryLimiter } from '../src/limits/memory-limiter';
import type { KeySubject } from '../src/limits/types';
import type { UsageBoard } from '../src/usage/usage-board';

/**
 * The behaviour every UsageBoard must have, run by usage-board.test.ts against the in-process board,
 * Redis and Redis Cluster, on an injected clock (decisions from a real in-process limiter, observed
 * as the rate-limit stage does). `open` gives a fresh, empty board.
 */
const T0 = Date.UTC(2031, 2, 10, 12, 0, 0);
const subject = (accountId: string, perMinute: number, perDay: number, keyId = `${accountId}-key`): KeySubject => ({ accountId, keyId, quotas: { perMinute, perDay } });

export function usageBoardContract(name: string, open: () => Promise<UsageBoard>): void {
  describe(`${name} (UsageBoard contract)`, () => {
    let board: UsageBoard;
    beforeEach(async () => {
      board = await open();
    });
    afterEach(async () => {
      await board.close();
    });

    async function drive(limiter: MemoryLimiter, who: KeySubject, requests: number, at = T0) {
      for (let i = 0; i < requests; i++) board.observe(who, await limiter.consumeKey(who, at + i), at + i);
      await board.flush();
    }

    it('when accounts use their quotas, then top lists the highest share first, with used and quota of the window', async () => {
      const limiter = new MemoryLimiter({ threshold: null, seconds: 60 });
      await drive(limiter, subject('small', 10, 1_000), 9);
      await drive(limiter, subject('big', 100, 1_000), 30);
      await drive(limiter, subject('idle', 10, 1_000), 1);
      expect(await board.top('minute', 10, T0 + 100)).toEqual([
        { accountId: 'small', used: 9, quota: 10 },
        { accountId: 'big', used: 30, quota: 100 },
        { accountId: 'idle', used: 1, quota: 10 },
      ]);
      expect(await board.top('day', 2, T0 + 100)).toEqual([
        { accountId: 'big', used: 30, quota: 1_000 },
        { accountId: 'small', used: 9, quota: 1_000 },
      ]);
    });

    it("when a window ends, then its account leaves that window's list but stays in the day's", async () => {
      const limiter = new MemoryLimiter({ threshold: null, seconds: 60 });
      await drive(limiter, subject('a', 10, 100), 3);
      expect(await board.top('minute', 10, T0 + 60_001)).toEqual([]);
      expect(await board.top('day', 10, T0 + 60_001)).toEqual([{ accountId: 'a', used: 3, quota: 100 }]);
      expect(await board.top('day', 10, Date.UTC(2031, 2, 11, 0, 0, 0))).toEqual([]);
    });

    it('when requests are refused or banned, then refused counts them per key for today, and accepted ones not at all', async () => {
      const limiter = new MemoryLimiter({ threshold: 3, seconds: 60 });
      await drive(limiter, subject('acme', 2, 100, 'noisy'), 7); // 2 accepted, 2 limited, then banned
      await drive(limiter, subject('acme', 2, 100, 'quiet'), 1);
      await drive(limiter, subject('calm', 10, 100, 'fine'), 5);
      expect(await board.refused(10, T0 + 100)).toEqual([
        { keyId: 'noisy', accountId: 'acme', refused: 5 },
        { keyId: 'quiet', accountId: 'acme', refused: 1 },
      ]);
      expect(await board.refused(1, T0 + 100)).toEqual([{ keyId: 'noisy', accountId: 'acme', refused: 5 }]);
      expect(await board.refused(10, Date.UTC(2031, 2, 11, 0, 0, 1))).toEqual([]);
      expect(await board.top('minute', 1, T0 + 100)).toEqual([{ accountId: 'acme', used: 2, quota: 2 }]);
    });
  });
}
