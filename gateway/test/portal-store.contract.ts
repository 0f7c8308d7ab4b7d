import { sleep, waitFor } from '../../test/helpers/ports';
import type { Credential, PortalStore, SessionRecord } from '../src/portal/store';

/**
 * The behaviour every PortalStore must have, run by portal-store.test.ts against the in-process
 * store and the Redis store. `open` gives a fresh, empty store; the suite closes it after each test.
 */
export function portalStoreContract(name: string, open: () => Promise<PortalStore>): void {
  describe(`${name} (PortalStore contract)`, () => {
    let store: PortalStore;

    beforeEach(async () => {
      store = await open();
    });

    afterEach(async () => {
      await store.close();
    });

    const credential = (accountId = 'acct_00000000000000000001'): Credential => ({ accountId, passwordHash: '$scrypt$ln=15,r=8,p=1$c2FsdA$aGFzaA', createdAt: '2026-01-02T03:04:05.000Z' });
    const session = (overrides: Partial<SessionRecord> = {}): SessionRecord => ({ accountId: 'acct_00000000000000000001', csrfToken: 'csrf-1', createdAtMs: 1_000, lastSeenAtMs: 2_000, ...overrides });

    describe('sign-up reservations', () => {
      it('when twenty sign-ups reserve one email at once, then exactly one gets it', async () => {
        const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.reserveEmail('ann@example.com', `r${i}`, 60_000)));
        expect(results.filter(Boolean)).toHaveLength(1);
      });

      it('when a reservation is completed, then the credential is found and the email cannot be reserved again', async () => {
        expect(await store.reserveEmail('ann@example.com', 'r1', 60_000)).toBe(true);
        expect(await store.findCredential('ann@example.com')).toBeNull();
        expect(await store.completeSignUp('ann@example.com', 'r1', credential())).toBe(true);
        expect(await store.findCredential('ann@example.com')).toEqual(credential());
        expect(await store.reserveEmail('ann@example.com', 'r2', 60_000)).toBe(false);
        expect(await store.findCredential('bob@example.com')).toBeNull();
      });

      it('when another reservation completes, then nothing is written and the first reservation stays', async () => {
        await store.reserveEmail('ann@example.com', 'r1', 60_000);
        expect(await store.completeSignUp('ann@example.com', 'intruder', credential())).toBe(false);
        expect(await store.findCredential('ann@example.com')).toBeNull();
        expect(await store.completeSignUp('ann@example.com', 'r1', credential())).toBe(true);
      });

      it('when a sign-up releases its reservation, then the email is free; a foreign release changes nothing', async () => {
        await store.reserveEmail('ann@example.com', 'r1', 60_000);
        await store.releaseEmail('ann@example.com', 'other');
        expect(await store.reserveEmail('ann@example.com', 'r2', 60_000)).toBe(false);
        await store.releaseEmail('ann@example.com', 'r1');
        expect(await store.reserveEmail('ann@example.com', 'r2', 60_000)).toBe(true);
      });

      it('when a credential exists, then releasing with any reservation leaves it', async () => {
        await store.reserveEmail('ann@example.com', 'r1', 60_000);
        await store.completeSignUp('ann@example.com', 'r1', credential());
        await store.releaseEmail('ann@example.com', 'r1');
        expect(await store.findCredential('ann@example.com')).toEqual(credential());
      });

      it('when a reservation is never completed, then it expires and the email can be signed up again', async () => {
        await store.reserveEmail('ann@example.com', 'r1', 50);
        // However slow the machine, the 50 ms pass: the second reservation gets it within seconds.
        await waitFor(() => store.reserveEmail('ann@example.com', 'r2', 60_000), 10_000, 'the reservation to expire');
        expect(await store.completeSignUp('ann@example.com', 'r1', credential())).toBe(false);
      });
    });

    describe('sessions', () => {
      it('when a session is saved, then it is found until deleted', async () => {
        await store.saveSession('s1', session(), 60_000);
        expect(await store.findSession('s1')).toEqual(session());
        expect(await store.findSession('s2')).toBeNull();
        await store.deleteSession('s1');
        expect(await store.findSession('s1')).toBeNull();
      });

      it('when saving again, then it replaces the session and restarts its time to live', async () => {
        await store.saveSession('s1', session(), 100);
        await store.saveSession('s1', session({ lastSeenAtMs: 3_000 }), 60_000);
        // Past the first time to live whatever the machine's speed; within the second unless it stalls for a minute.
        await sleep(300);
        expect(await store.findSession('s1')).toEqual(session({ lastSeenAtMs: 3_000 }));
      });

      it('when its time to live passes, then the session is gone', async () => {
        // Two seconds: found at once even on a loaded machine, then gone once they pass.
        await store.saveSession('s1', session(), 2_000);
        expect(await store.findSession('s1')).toEqual(session());
        await waitFor(async () => (await store.findSession('s1')) === null, 15_000, 'the session to expire');
      });

      it("when an account's sessions are ended, then every one of them is gone and other accounts' stay", async () => {
        await store.saveSession('s1', session(), 60_000);
        await store.saveSession('s2', session({ csrfToken: 'csrf-2' }), 60_000);
        await store.saveSession('s3', session({ accountId: 'acct_00000000000000000002' }), 60_000);
        await store.deleteSessionsOf('acct_00000000000000000001');
        expect(await store.findSession('s1')).toBeNull();
        expect(await store.findSession('s2')).toBeNull();
        expect(await store.findSession('s3')).not.toBeNull();
        await store.deleteSessionsOf('acct_00000000000000000009');
      });
    });

    describe('passwords', () => {
      it('when a password is replaced, then the credential has the new hash; an email without a credential (or only reserved) is not changed', async () => {
        await store.reserveEmail('ann@example.com', 'r1', 60_000);
        expect(await store.replacePassword('ann@example.com', 'new-hash')).toBe(false);
        await store.completeSignUp('ann@example.com', 'r1', credential());
        expect(await store.replacePassword('ann@example.com', 'new-hash')).toBe(true);
        expect(await store.findCredential('ann@example.com')).toEqual({ ...credential(), passwordHash: 'new-hash' });
        expect(await store.replacePassword('bob@example.com', 'new-hash')).toBe(false);
        expect(await store.findCredential('bob@example.com')).toBeNull();
      });
    });
  });
}
