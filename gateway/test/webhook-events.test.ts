import request from 'supertest';
import type { Gateway } from '../src/gateway';
import { waitFor } from '../../test/helpers/ports';
import { WebhookReceiver } from '../../test/helpers/webhook-receiver';
import { ADMIN_TOKEN, publicGet, startGateway } from './support/gateway';

/** The domain events reach an account's endpoint: key changes from the use cases, bans and quota crossings from the limiter. */

const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const DEADLINE_MS = 10_000;
let gateway: Gateway;
let receiver: WebhookReceiver;

beforeEach(async () => {
  receiver = await WebhookReceiver.start();
  gateway = await startGateway({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '100ms', BAN_THRESHOLD: '2' });
});

afterEach(async () => {
  await gateway.close();
  await receiver.close();
});

async function hookedAccount(body: object = { name: 'Hooked', plan: 'free' }): Promise<{ accountId: string; secret: string }> {
  const account = await request(gateway.adminApp).post('/admin/accounts').set(auth).send(body).expect(201);
  const endpoint = await request(gateway.adminApp).post(`/admin/accounts/${account.body.id}/webhooks`).set(auth).send({ url: receiver.url }).expect(201);
  return { accountId: account.body.id, secret: endpoint.body.secret };
}

const typesReceived = () => receiver.received.map((delivery) => delivery.payload.type);

it('when a key is created, rolled and revoked, then the endpoint receives key.created, key.rolled and key.revoked, signed, never with the key', async () => {
  const { accountId, secret } = await hookedAccount();
  const created = await request(gateway.adminApp).post(`/admin/accounts/${accountId}/keys`).set(auth).send({ name: 'ci', access: 'read-only' }).expect(201);
  await waitFor(() => receiver.received.length === 1, DEADLINE_MS, 'key.created');
  const rolled = await request(gateway.adminApp).post(`/admin/keys/${created.body.id}/roll`).set(auth).send({ gracePeriodSeconds: 60 }).expect(201);
  await waitFor(() => receiver.received.length === 2, DEADLINE_MS, 'key.rolled');
  await request(gateway.adminApp).delete(`/admin/keys/${rolled.body.id}`).set(auth).expect(204);
  await waitFor(() => receiver.received.length === 3, DEADLINE_MS, 'key.revoked');

  const payloads = receiver.verifyAll(secret);
  expect(payloads.map((payload) => [payload.type, payload.data])).toEqual([
    ['key.created', { accountId, keyId: created.body.id, name: 'ci', access: 'read-only', expiresAt: null }],
    ['key.rolled', { accountId, keyId: created.body.id, name: 'ci', access: 'read-only', expiresAt: rolled.body.replaces.expiresAt, replacedBy: rolled.body.id }],
    ['key.revoked', { accountId, keyId: rolled.body.id, name: 'ci', access: 'read-only', expiresAt: null }],
  ]);
  for (const delivery of receiver.received) {
    expect(delivery.body).not.toContain(created.body.key);
    expect(delivery.body).not.toContain(rolled.body.key);
  }
});

it('when a key keeps sending while limited, then key.banned is delivered once for the ban', async () => {
  const { accountId, secret } = await hookedAccount({ name: 'Busy', plan: 'free', perMinute: 1, perDay: 1_000 });
  const key = await request(gateway.adminApp).post(`/admin/accounts/${accountId}/keys`).set(auth).expect(201);
  await waitFor(() => typesReceived().includes('key.created'), DEADLINE_MS, 'key.created');
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) statuses.push((await publicGet(gateway, '/v1/pets', '203.0.113.9', key.body.key)).status);
  expect(statuses.slice(1)).toEqual([429, 429, 429, 429, 429]);
  await waitFor(() => typesReceived().includes('key.banned'), DEADLINE_MS, 'key.banned');
  // More refusals of the banned key, then time for any duplicate to arrive.
  await publicGet(gateway, '/v1/pets', '203.0.113.9', key.body.key).expect(429);
  await request(gateway.adminApp).post(`/admin/webhooks/${(await request(gateway.adminApp).get(`/admin/accounts/${accountId}/webhooks`).set(auth)).body[0].id}/test`).set(auth).expect(202);
  await waitFor(() => typesReceived().includes('webhook.test'), DEADLINE_MS, 'the test event after the ban');
  expect(typesReceived().filter((type) => type === 'key.banned')).toHaveLength(1);
  const banned = receiver.verifyAll(secret).find((payload) => payload.type === 'key.banned')!;
  expect(banned.data).toEqual({ accountId, keyId: key.body.id, name: null, access: 'read-write', expiresAt: null });
});

it('when an account reaches 80 % and 100 % of its day quota, then quota.warning and quota.exhausted are delivered', async () => {
  const { accountId, secret } = await hookedAccount({ name: 'Quota', plan: 'free', perMinute: 100, perDay: 5 });
  const key = await request(gateway.adminApp).post(`/admin/accounts/${accountId}/keys`).set(auth).expect(201);
  for (let i = 0; i < 5; i++) await publicGet(gateway, '/v1/pets', '203.0.113.10', key.body.key);
  await waitFor(() => typesReceived().includes('quota.exhausted'), DEADLINE_MS, 'quota.exhausted');
  const quota = receiver.verifyAll(secret).filter((payload) => payload.type.startsWith('quota.'));
  expect(quota.map((payload) => [payload.type, payload.data.used, payload.data.quota, payload.data.window])).toEqual([
    ['quota.warning', 4, 5, 'day'],
    ['quota.exhausted', 5, 5, 'day'],
  ]);
  expect(quota[0]!.data).toEqual({ accountId, window: 'day', used: 4, quota: 5, resetAt: expect.stringMatching(/T00:00:00.000Z$/) });
});
