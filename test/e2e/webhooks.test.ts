import { waitFor } from '../helpers/ports';
import { admin, startSystem, type GatewayHandle, type SystemHandle } from '../helpers/system';
import { WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * Webhooks across real processes: gateway replicas on one Redis (BullMQ), a real receiver. Each
 * event reaches the endpoint once whichever replica it happened on; a delivery pending while the
 * receiver is down survives the SIGKILL of the replica that queued it and arrives, once, after a
 * new replica starts; the delivery log says what the receiver saw.
 */

// Short delays so the test waits seconds, not hours; 20 retries cover a replica's restart.
const RETRY_SCHEDULE = ['200ms', '400ms', ...Array.from({ length: 18 }, () => '1s')].join(',');
const DEADLINE_MS = 30_000;

let system: SystemHandle;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  system = await startSystem({ redis: true, replicas: 2, gatewayEnv: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: RETRY_SCHEDULE } });
}, 60_000);

afterAll(async () => {
  await system?.stop();
  await receiver?.close();
});

interface Delivery {
  eventId: string;
  type: string;
  status: string;
  attempts: number;
  lastResponseStatus: number | null;
}

async function hookedAccount(adminUrl: string): Promise<{ accountId: string; webhookId: string; secret: string }> {
  const account = await admin<{ id: string }>(adminUrl, 'POST', '/admin/accounts', { name: 'Hooked', plan: 'free' });
  const endpoint = await admin<{ id: string; secret: string }>(adminUrl, 'POST', `/admin/accounts/${account.body.id}/webhooks`, { url: receiver.url });
  expect(endpoint.status).toBe(201);
  return { accountId: account.body.id, webhookId: endpoint.body.id, secret: endpoint.body.secret };
}

const deliveriesOf = async (adminUrl: string, webhookId: string) => (await admin<Delivery[]>(adminUrl, 'GET', `/admin/webhooks/${webhookId}/deliveries?limit=100`)).body;
const testEvent = async (adminUrl: string, webhookId: string) => (await admin<{ eventId: string }>(adminUrl, 'POST', `/admin/webhooks/${webhookId}/test`)).body.eventId;

it('when events happen on two replicas, then each reaches the endpoint once, verified, and the log matches what the receiver saw', async () => {
  const [a, b] = system.gateways as [GatewayHandle, GatewayHandle];
  const { accountId, webhookId, secret } = await hookedAccount(a.adminUrl);
  const keyIds: string[] = [];
  for (const gateway of [a, b, a, b]) keyIds.push((await admin<{ id: string }>(gateway.adminUrl, 'POST', `/admin/accounts/${accountId}/keys`)).body.id);
  const tests = [await testEvent(b.adminUrl, webhookId), await testEvent(a.adminUrl, webhookId)];
  await waitFor(() => receiver.received.length >= 6, DEADLINE_MS, 'six deliveries');
  // A last event through each replica: once they are in, any repeat of the earlier ones would be too.
  tests.push(await testEvent(a.adminUrl, webhookId), await testEvent(b.adminUrl, webhookId));
  await waitFor(() => tests.every((id) => receiver.received.some((delivery) => delivery.id === id)), DEADLINE_MS, 'the last test events');

  const payloads = receiver.verifyAll(secret);
  expect(receiver.received).toHaveLength(8);
  expect(new Set(receiver.received.map((delivery) => delivery.id)).size).toBe(8);
  expect(payloads.filter((payload) => payload.type === 'key.created').map((payload) => payload.data.keyId).sort()).toEqual([...keyIds].sort());

  await waitFor(async () => (await deliveriesOf(b.adminUrl, webhookId)).every((delivery) => delivery.status === 'delivered'), DEADLINE_MS, 'every delivery recorded');
  const log = await deliveriesOf(b.adminUrl, webhookId);
  expect(log.map((delivery) => delivery.eventId).sort()).toEqual(receiver.received.map((delivery) => delivery.id).sort());
  for (const delivery of log) expect(delivery).toMatchObject({ status: 'delivered', attempts: 1, lastResponseStatus: 204 });
  const seen = new Map(receiver.received.map((delivery) => [delivery.id, delivery.payload.type]));
  for (const delivery of log) expect(delivery.type).toBe(seen.get(delivery.eventId));
}, 90_000);

it('when the receiver is down and the replica that queued a delivery is killed, then a new replica delivers it later, once', async () => {
  const [a, b] = system.gateways as [GatewayHandle, GatewayHandle];
  // One worker left, the one to be killed: nobody else may take the delivery meanwhile.
  await b.process.stop();
  const { webhookId, secret } = await hookedAccount(a.adminUrl);
  const port = receiver.port;
  await receiver.close();

  const eventId = await testEvent(a.adminUrl, webhookId);
  await waitFor(async () => ((await deliveriesOf(a.adminUrl, webhookId))[0]?.attempts ?? 0) >= 2, DEADLINE_MS, 'two failed attempts');
  expect((await deliveriesOf(a.adminUrl, webhookId))[0]).toMatchObject({ eventId, status: 'pending', lastResponseStatus: null });
  await a.process.stop('SIGKILL');

  receiver = await WebhookReceiver.start(() => 204, port);
  const c = await system.startGateway();
  await waitFor(() => receiver.received.some((delivery) => delivery.id === eventId), DEADLINE_MS, 'the delivery after the restart');
  const marker = await testEvent(c.adminUrl, webhookId);
  await waitFor(() => receiver.received.some((delivery) => delivery.id === marker), DEADLINE_MS, 'a later event');

  expect(receiver.received.map((delivery) => delivery.id)).toEqual([eventId, marker]);
  receiver.verifyAll(secret);
  await waitFor(async () => (await deliveriesOf(c.adminUrl, webhookId)).every((delivery) => delivery.status === 'delivered'), DEADLINE_MS, 'the log updated');
  const log = await deliveriesOf(c.adminUrl, webhookId);
  expect(log.map((delivery) => delivery.eventId)).toEqual([marker, eventId]);
  expect(log[1]!.attempts).toBeGreaterThanOrEqual(3);
}, 120_000);

it('when Redis is down, then a replica with webhook workers still stops by itself within its 10 s, exit 0', async () => {
  const replica = system.gateways[system.gateways.length - 1]!;
  await system.redis!.stop();
  const started = Date.now();
  expect(await replica.process.stop()).toBe(0);
  expect(Date.now() - started).toBeLessThan(9_500);
}, 30_000);
