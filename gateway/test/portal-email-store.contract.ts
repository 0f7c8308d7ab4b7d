import { sleep } from '../../test/helpers/ports';
import type { PortalEmailStore } from '../src/portal/email-store';

/**
 * The behaviour every PortalEmailStore must have, run by portal-email-store.test.ts against the
 * in-process store and the Redis store. `open` gives a fresh, empty store.
 */
export function portalEmailStoreContract(name: string, open: () => Promise<PortalEmailStore>): void {
  describe(`${name} (PortalEmailStore contract)`, () => {
    let store: PortalEmailStore;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });
    const record = (digest: string) => ({ digest, email: 'ann@example.com' });

    it('when a link is taken, then it is given once, only for its digest, purpose and account', async () => {
      await store.saveLink('verify', 'acct_1', record('d1'), 60_000);
      expect(await store.takeLink('verify', 'acct_1', 'other')).toBeNull();
      expect(await store.takeLink('reset', 'acct_1', 'd1')).toBeNull();
      expect(await store.takeLink('verify', 'acct_2', 'd1')).toBeNull();
      expect(await store.takeLink('verify', 'acct_1', 'd1')).toEqual(record('d1'));
      expect(await store.takeLink('verify', 'acct_1', 'd1')).toBeNull();
    });

    it('when ten requests take one link at once, then exactly one gets it', async () => {
      await store.saveLink('reset', 'acct_1', record('d1'), 60_000);
      const taken = await Promise.all(Array.from({ length: 10 }, () => store.takeLink('reset', 'acct_1', 'd1')));
      expect(taken.filter(Boolean)).toHaveLength(1);
    });

    it('when a newer link is saved, then the older one stops working', async () => {
      await store.saveLink('reset', 'acct_1', record('old'), 60_000);
      await store.saveLink('reset', 'acct_1', record('new'), 60_000);
      expect(await store.takeLink('reset', 'acct_1', 'old')).toBeNull();
      expect(await store.takeLink('reset', 'acct_1', 'new')).toEqual(record('new'));
    });

    it('when its time passes, then the link is gone', async () => {
      await store.saveLink('reset', 'acct_1', record('d1'), 50);
      await sleep(120);
      expect(await store.takeLink('reset', 'acct_1', 'd1')).toBeNull();
    });

    it('when a profile is updated field by field, then each field keeps its own last value; an unknown account has none', async () => {
      expect(await store.findProfile('acct_1')).toBeNull();
      await store.updateProfile('acct_1', {});
      expect(await store.findProfile('acct_1')).toEqual({ emailVerifiedAt: null, quotaEmails: true });
      await store.updateProfile('acct_1', { quotaEmails: false });
      await store.updateProfile('acct_1', { emailVerifiedAt: '2026-11-26T10:00:00.000Z' });
      expect(await store.findProfile('acct_1')).toEqual({ emailVerifiedAt: '2026-11-26T10:00:00.000Z', quotaEmails: false });
      await store.updateProfile('acct_1', { quotaEmails: true });
      expect(await store.findProfile('acct_1')).toEqual({ emailVerifiedAt: '2026-11-26T10:00:00.000Z', quotaEmails: true });
      expect(await store.findProfile('acct_2')).toBeNull();
    });
  });
}
