import pino from 'pino';
import { MemoryAuditLog } from '../src/audit/audit-log';
import { MemoryJobQueues } from '../src/jobs/memory-queues';
import { DISABLE_AFTER_FAILING_MS, WebhookDeliveries } from '../src/webhooks/deliveries';
import { disabledNotice, type OwnerNotice } from '../src/webhooks/disabled-notice';
import { MemoryWebhookStore } from '../src/webhooks/memory-webhook-store';
import { WebhookService } from '../src/webhooks/webhook-service';
import { waitFor } from '../../test/helpers/ports';
import { WebhookReceiver } from '../../test/helpers/webhook-receiver';

/** An endpoint that fails every delivery for 5 days is disabled, its owner told once, and it receives nothing more. */

const logger = pino({ level: 'silent' });
const T0 = Date.parse('2026-03-01T00:00:00.000Z');

it('when every attempt fails for 5 days, then the endpoint is disabled, the owner told once, and later events are not sent to it', async () => {
  let now = T0;
  const receiver = await WebhookReceiver.start(() => 500);
  const jobs = new MemoryJobQueues();
  const told: { accountId: string; notice: OwnerNotice }[] = [];
  try {
    const store = new MemoryWebhookStore(100, () => now);
    const deliveries = new WebhookDeliveries({
      store,
      jobs,
      retryDelaysMs: [],
      allowPrivate: true,
      logger,
      now: () => now,
      onDisabled: async (endpoint) => void told.push({ accountId: endpoint.accountId, notice: disabledNotice(endpoint) }),
    });
    const service = new WebhookService({ store, deliveries, audit: new MemoryAuditLog(), requireAccount: async () => ({}), allowPrivate: true, logger, now: () => now });
    const endpoint = await service.addEndpoint('acct_1', { url: receiver.url }, { actor: 'admin' });
    const test = () => service.sendTest(endpoint.id, { actor: 'admin' });
    const statusOf = async (eventId: string) => (await store.getDelivery(endpoint.id, eventId))?.status;

    const first = await test();
    await waitFor(async () => (await statusOf(first)) === 'failed', 5_000, 'the first failure');
    now = T0 + DISABLE_AFTER_FAILING_MS - 1;
    const second = await test();
    await waitFor(async () => (await statusOf(second)) === 'failed', 5_000, 'a failure just short of 5 days');
    expect((await store.getEndpoint(endpoint.id))?.disabledAt).toBeNull();

    now = T0 + DISABLE_AFTER_FAILING_MS;
    const third = await test();
    await waitFor(async () => (await statusOf(third)) === 'failed', 5_000, 'the failure at 5 days');
    expect((await store.getEndpoint(endpoint.id))?.disabledAt).toBe(new Date(now).toISOString());
    expect(told).toEqual([{ accountId: 'acct_1', notice: { subject: 'Your webhook endpoint was disabled', text: expect.stringContaining(receiver.url) } }]);
    expect(told[0]!.notice.text).not.toContain(endpoint.secret);
    expect((await service.listEndpoints('acct_1'))[0]!.disabledAt).toBe(new Date(now).toISOString());

    // A domain event for the account no longer reaches the endpoint.
    const sent = receiver.received.length;
    await deliveries.toEndpoints({ id: 'evt_after', type: 'key.revoked', at: now, accountId: 'acct_1', data: { accountId: 'acct_1', keyId: 'key_1', name: null, access: 'read-write', expiresAt: null } });
    expect(await deliveries.stats()).toMatchObject({ waiting: 0, delayed: 0 });
    await jobs.close();
    expect(await store.getDelivery(endpoint.id, 'evt_after')).toBeNull();
    expect(receiver.received).toHaveLength(sent);
    expect(told).toHaveLength(1);
  } finally {
    await jobs.close();
    await receiver.close();
  }
});

it('when a delivery succeeds in between, then the failing time starts again', async () => {
  let now = T0;
  let failing = true;
  const receiver = await WebhookReceiver.start(() => (failing ? 500 : 204));
  const jobs = new MemoryJobQueues();
  try {
    const store = new MemoryWebhookStore(100, () => now);
    const deliveries = new WebhookDeliveries({ store, jobs, retryDelaysMs: [], allowPrivate: true, logger, now: () => now });
    const service = new WebhookService({ store, deliveries, audit: new MemoryAuditLog(), requireAccount: async () => ({}), allowPrivate: true, logger, now: () => now });
    const endpoint = await service.addEndpoint('acct_1', { url: receiver.url }, { actor: 'admin' });
    const deliver = async (expected: string) => {
      const eventId = await service.sendTest(endpoint.id, { actor: 'admin' });
      await waitFor(async () => (await store.getDelivery(endpoint.id, eventId))?.status === expected, 5_000, expected);
    };
    await deliver('failed');
    now = T0 + DAY(3);
    failing = false;
    await deliver('delivered');
    failing = true;
    now = T0 + DAY(6);
    await deliver('failed');
    expect((await store.getEndpoint(endpoint.id))?.disabledAt).toBeNull();
    expect((await store.getEndpoint(endpoint.id))?.failingSince).toBe(T0 + DAY(6));
  } finally {
    await jobs.close();
    await receiver.close();
  }
});

function DAY(n: number): number {
  return n * 86_400_000;
}
