import type { DeliveryRecord, StoredEndpoint, WebhookStore } from '../src/webhooks/store';

/**
 * The behaviour every WebhookStore must have, run by webhook-store.test.ts on the in-process store,
 * Redis and a Redis Cluster. `open` gives a fresh, empty store that keeps 5 deliveries per endpoint.
 */
export function webhookStoreContract(name: string, open: () => Promise<WebhookStore>): void {
  describe(`${name} (WebhookStore contract)`, () => {
    let store: WebhookStore;
    let ids = 0;
    const anEndpoint = (accountId = 'acct_1', createdAt = `2026-01-01T00:00:0${ids % 10}.000Z`): StoredEndpoint => ({
      id: `wh_${++ids}`,
      accountId,
      url: 'https://hooks.example.com/in',
      events: ['key.created', 'quota.warning'],
      secret: 'whsec_c2VjcmV0',
      createdAt,
      disabledAt: null,
      failingSince: null,
    });
    const aDelivery = (eventId: string, queuedAtMs: number): DeliveryRecord => ({ eventId, type: 'key.created', status: 'pending', attempts: 0, lastResponseStatus: null, nextAttemptAt: null, queuedAtMs });

    beforeEach(async () => {
      store = await open();
    });

    it('when endpoints are added, then the account lists them oldest first with their secrets, and another account none', async () => {
      const first = anEndpoint();
      const second = anEndpoint();
      expect(await store.addEndpoint(first, 10)).toBe(true);
      expect(await store.addEndpoint(second, 10)).toBe(true);
      expect(await store.listEndpoints('acct_1')).toEqual([first, second]);
      expect(await store.listEndpoints('acct_2')).toEqual([]);
      expect(await store.getEndpoint(first.id)).toEqual(first);
    });

    it('when an account has the most endpoints, then one more is refused and not written', async () => {
      await store.addEndpoint(anEndpoint(), 2);
      await store.addEndpoint(anEndpoint(), 2);
      const third = anEndpoint();
      expect(await store.addEndpoint(third, 2)).toBe(false);
      expect(await store.getEndpoint(third.id)).toBeNull();
      expect(await store.listEndpoints('acct_1')).toHaveLength(2);
      expect(await store.addEndpoint(anEndpoint('acct_2'), 2)).toBe(true);
    });

    it('when an endpoint is removed, then it and its deliveries are gone, and removing it again finds nothing', async () => {
      const endpoint = anEndpoint();
      await store.addEndpoint(endpoint, 10);
      await store.saveDelivery(endpoint.id, aDelivery('evt_1', 1));
      expect(await store.removeEndpoint(endpoint.id)).toEqual(endpoint);
      expect(await store.getEndpoint(endpoint.id)).toBeNull();
      expect(await store.listEndpoints('acct_1')).toEqual([]);
      expect(await store.getDelivery(endpoint.id, 'evt_1')).toBeNull();
      expect(await store.removeEndpoint(endpoint.id)).toBeNull();
    });

    it('when attempts fail and then one succeeds, then failingSince holds the first failure until the success clears it', async () => {
      const endpoint = anEndpoint();
      await store.addEndpoint(endpoint, 10);
      expect(await store.noteFailure(endpoint.id, 1_000)).toBe(1_000);
      expect(await store.noteFailure(endpoint.id, 2_000)).toBe(1_000);
      await store.noteSuccess(endpoint.id);
      expect((await store.getEndpoint(endpoint.id))?.failingSince).toBeNull();
      expect(await store.noteFailure(endpoint.id, 3_000)).toBe(3_000);
      expect(await store.noteFailure('wh_none', 3_000)).toBeNull();
    });

    it('when an endpoint is disabled twice, then only the first call disables it', async () => {
      const endpoint = anEndpoint();
      await store.addEndpoint(endpoint, 10);
      expect(await store.disable(endpoint.id, '2026-01-06T00:00:00.000Z')).toBe(true);
      expect(await store.disable(endpoint.id, '2026-01-07T00:00:00.000Z')).toBe(false);
      expect((await store.getEndpoint(endpoint.id))?.disabledAt).toBe('2026-01-06T00:00:00.000Z');
      expect(await store.disable('wh_none', '2026-01-06T00:00:00.000Z')).toBe(false);
    });

    it('when a delivery is started twice, then the second start changes nothing, and a save replaces it', async () => {
      const endpoint = anEndpoint();
      await store.addEndpoint(endpoint, 10);
      expect(await store.startDelivery(endpoint.id, aDelivery('evt_1', 5))).toBe(true);
      const delivered: DeliveryRecord = { ...aDelivery('evt_1', 5), status: 'delivered', attempts: 2, lastResponseStatus: 204 };
      await store.saveDelivery(endpoint.id, delivered);
      expect(await store.startDelivery(endpoint.id, aDelivery('evt_1', 5))).toBe(false);
      expect(await store.getDelivery(endpoint.id, 'evt_1')).toEqual(delivered);
    });

    it('when an endpoint is gone, then no delivery is written for it', async () => {
      expect(await store.startDelivery('wh_none', aDelivery('evt_1', 5))).toBe(false);
      await store.saveDelivery('wh_none', aDelivery('evt_1', 5));
      expect(await store.getDelivery('wh_none', 'evt_1')).toBeNull();
    });

    it('when deliveries are listed, then newest first, page by page, and only the most recent are kept', async () => {
      const endpoint = anEndpoint();
      await store.addEndpoint(endpoint, 10);
      for (let i = 1; i <= 7; i++) await store.saveDelivery(endpoint.id, aDelivery(`evt_${i}`, i === 7 ? 6 : i));
      const first = await store.listDeliveries(endpoint.id, { limit: 3 });
      expect(first.deliveries.map((d) => d.eventId)).toEqual(['evt_7', 'evt_6', 'evt_5']);
      expect(first.next).toEqual({ queuedAtMs: 5, eventId: 'evt_5' });
      const second = await store.listDeliveries(endpoint.id, { limit: 3, after: first.next! });
      expect(second.deliveries.map((d) => d.eventId)).toEqual(['evt_4', 'evt_3']);
      expect(second.next).toBeNull();
      expect(await store.getDelivery(endpoint.id, 'evt_2')).toBeNull();
    });

    it('when a claim is taken, then a second one within its time is refused, and one after it is granted', async () => {
      expect(await store.claimOnce('expiring:key_1:7d', 60_000)).toBe(true);
      expect(await store.claimOnce('expiring:key_1:7d', 60_000)).toBe(false);
      expect(await store.claimOnce('expiring:key_1:1d', 60_000)).toBe(true);
      expect(await store.claimOnce('short', 1)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await store.claimOnce('short', 1)).toBe(true);
    });
  });
}
