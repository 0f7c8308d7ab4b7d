import { MemoryAccountStore } from '../accounts/memory-account-store';
import { MemoryWebhookStore } from '../webhooks/memory-webhook-store';
import { hashApiKey, generateApiKey, newAccountId, newKeyId } from '../keys/api-key';
import type { DomainEvent } from './types';
import { ExpiringKeys } from './expiring-keys';

const DAY = 86_400_000;
const T0 = Date.parse('2026-03-01T00:00:00.000Z');

async function storeWithKeys(expiries: (number | undefined)[], extra: { replacedBy?: string; revokedAt?: string } = {}) {
  const store = new MemoryAccountStore();
  const accountId = newAccountId();
  await store.createAccount({ id: accountId, name: 'A', plan: 'free', perMinute: null, perDay: null, email: null, createdAt: new Date(T0).toISOString() });
  const ids: string[] = [];
  for (const expiry of expiries) {
    const id = newKeyId();
    ids.push(id);
    await store.addKey({ id, accountId, hash: hashApiKey(generateApiKey()), createdAt: new Date(T0).toISOString(), revokedAt: null, ...(expiry === undefined ? {} : { expiresAt: new Date(T0 + expiry).toISOString() }), ...extra });
  }
  return { store, ids };
}

describe('ExpiringKeys', () => {
  let now = T0;
  const sweepers: ExpiringKeys[] = [];
  const published: DomainEvent[] = [];
  const bus = { publish: (event: DomainEvent) => published.push(event) };
  const sweeper = (store: MemoryAccountStore, claims: MemoryWebhookStore) => {
    const made = new ExpiringKeys({ store, claims, bus, now: () => now, intervalMs: 60_000 });
    sweepers.push(made);
    return made;
  };

  beforeEach(() => {
    now = T0;
    published.length = 0;
  });
  afterEach(() => sweepers.splice(0).forEach((made) => made.close()));

  it('when a key expires in 10 days, then it is told at 7 days and at 1 day before, once each, by two sweepers sharing the claims', async () => {
    const { store, ids } = await storeWithKeys([10 * DAY, undefined]);
    const claims = new MemoryWebhookStore(100, () => now);
    const [a, b] = [sweeper(store, claims), sweeper(store, claims)];
    await a.sweep();
    expect(published).toEqual([]);
    now = T0 + 3 * DAY;
    await a.sweep();
    await b.sweep();
    expect(published.map((event) => [event.type, (event.data as { keyId: string }).keyId])).toEqual([['key.expiring', ids[0]]]);
    now = T0 + 9 * DAY + 1;
    await b.sweep();
    await a.sweep();
    expect(published).toHaveLength(2);
    expect(published[1]!.data).toMatchObject({ keyId: ids[0], expiresAt: new Date(T0 + 10 * DAY).toISOString() });
  });

  it('when a key is first seen within a day of its expiry, then only one notice is sent', async () => {
    const { store } = await storeWithKeys([12 * 3_600_000]);
    const claims = new MemoryWebhookStore(100, () => now);
    await sweeper(store, claims).sweep();
    await sweeper(store, claims).sweep();
    expect(published).toHaveLength(1);
  });

  it('when a key was rolled away or revoked, then it gets no notice', async () => {
    const rolled = await storeWithKeys([DAY / 2], { replacedBy: 'key_00000000000000000000' });
    const revoked = await storeWithKeys([DAY / 2], { revokedAt: new Date(T0).toISOString() });
    await sweeper(rolled.store, new MemoryWebhookStore()).sweep();
    await sweeper(revoked.store, new MemoryWebhookStore()).sweep();
    expect(published).toEqual([]);
  });

  it('when two replicas run the periodic sweep in one interval, then only one sweeps', async () => {
    const { store } = await storeWithKeys([DAY / 2]);
    const claims = new MemoryWebhookStore(100, () => now);
    const [a, b] = [sweeper(store, claims), sweeper(store, claims)];
    const listed = jest.spyOn(store, 'listAccounts');
    await Promise.all([a.sweepOnce(60_000), b.sweepOnce(60_000)]);
    expect(listed).toHaveBeenCalledTimes(1);
  });
});
