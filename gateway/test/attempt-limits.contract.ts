import type { AttemptLimits } from '../src/portal/attempt-limits';

/** The policy every implementation is opened with: 3 failed log-ins per email and address in a minute. */
export const CONTRACT_POLICIES = { logInFailuresPerEmailAndAddress: { points: 3, durationSeconds: 60 } };

/**
 * The behaviour the portal's attempt limits must have wherever they count, run by attempt-limits.test.ts
 * in process, on Redis and on Redis Cluster. `open` gives fresh limits with `CONTRACT_POLICIES`.
 */
export function attemptLimitsContract(name: string, open: () => Promise<AttemptLimits>): void {
  describe(`${name} (AttemptLimits contract)`, () => {
    it('when the attempts of a subject run out, then the next is refused with the seconds to wait; others are unaffected', async () => {
      const limits = await open();
      for (let i = 0; i < 3; i += 1) expect(await limits.take('logInFailuresPerEmailAndAddress', 'ann@example.com')).toBeNull();
      const wait = await limits.take('logInFailuresPerEmailAndAddress', 'ann@example.com');
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(60);
      expect(await limits.take('logInFailuresPerEmailAndAddress', 'bob@example.com')).toBeNull();
      expect(await limits.take('logInFailuresPerAddress', 'ann@example.com')).toBeNull();
    });

    it('when an attempt is given back, then it no longer counts; a charge counts past the limit without being refused', async () => {
      const limits = await open();
      for (let i = 0; i < 3; i += 1) expect(await limits.take('logInFailuresPerEmailAndAddress', 'ann@example.com')).toBeNull();
      await limits.giveBack('logInFailuresPerEmailAndAddress', 'ann@example.com');
      expect(await limits.counted('logInFailuresPerEmailAndAddress', 'ann@example.com')).toBe(2);
      expect(await limits.take('logInFailuresPerEmailAndAddress', 'ann@example.com')).toBeNull();
      expect(await limits.take('logInFailuresPerEmailAndAddress', 'ann@example.com')).not.toBeNull();
      for (let i = 0; i < 5; i += 1) await limits.charge('logInFailuresPerEmail', 'ann@example.com');
      expect(await limits.counted('logInFailuresPerEmail', 'ann@example.com')).toBe(5);
      expect(limits.allowed('logInFailuresPerEmailAndAddress')).toBe(3);
    });

    it('when a subject is forgotten, then its attempts start again', async () => {
      const limits = await open();
      for (let i = 0; i < 4; i += 1) await limits.take('logInFailuresPerEmailAndAddress', 'ann@example.com');
      await limits.forget('logInFailuresPerEmailAndAddress', 'ann@example.com');
      expect(await limits.take('logInFailuresPerEmailAndAddress', 'ann@example.com')).toBeNull();
    });
  });
}
