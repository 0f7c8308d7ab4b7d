import request from 'supertest';
import type { Gateway } from '../src/gateway';
import { waitFor } from '../../test/helpers/ports';
import { WebhookReceiver } from '../../test/helpers/webhook-receiver';
import { expectError } from './support/admin-api';
import { ADMIN_TOKEN, startGateway } from './support/gateway';

/** The webhook routes of the admin API on a whole gateway in process, delivering to a real receiver. */

const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const DEADLINE_MS = 10_000;
let gateway: Gateway;
let receiver: WebhookReceiver;
let answers: (n: number) => number;

beforeEach(async () => {
  answers = () => 204;
  receiver = await WebhookReceiver.start((n) => answers(n));
  gateway = await startGateway({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '100ms,200ms' });
});

afterEach(async () => {
  await gateway.close();
  await receiver.close();
});

const admin = () => request(gateway.adminApp);

async function anAccount(): Promise<string> {
  return (await gateway.accounts.createAccount({ name: 'Hooked', plan: 'free' })).id;
}

async function addEndpoint(accountId: string, body: object = { url: receiver.url }) {
  const res = await admin().post(`/admin/accounts/${accountId}/webhooks`).set(auth).send(body);
  expect(res.status).toBe(201);
  return res.body as { id: string; secret: string; url: string; events: string[]; createdAt: string };
}

async function deliveries(webhookId: string, query = '') {
  const res = await admin().get(`/admin/webhooks/${webhookId}/deliveries${query}`).set(auth);
  expect(res.status).toBe(200);
  return res;
}

describe('webhook endpoints through the admin API', () => {
  it('when an endpoint is added, then its secret is shown once, the listing never shows it, and the audit trail has the change', async () => {
    const accountId = await anAccount();
    const created = await addEndpoint(accountId, { url: receiver.url, events: ['key.created', 'webhook.test'] });
    expect(created).toEqual({ id: expect.stringMatching(/^wh_/), accountId, url: receiver.url, events: ['key.created', 'webhook.test'], secret: expect.stringMatching(/^whsec_/), createdAt: expect.any(String), disabledAt: null });
    const listed = await admin().get(`/admin/accounts/${accountId}/webhooks`).set(auth);
    expect(listed.body).toEqual([{ id: created.id, accountId, url: receiver.url, events: ['key.created', 'webhook.test'], createdAt: created.createdAt, disabledAt: null }]);
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');
    const audit = await admin().get(`/admin/audit?account=${accountId}`).set(auth);
    expect(audit.body[0]).toMatchObject({ actor: 'admin', action: 'webhook.added', target: created.id, after: { url: receiver.url, events: 'key.created,webhook.test' } });
    expect(JSON.stringify(audit.body)).not.toContain(created.secret);
  });

  it.each([
    [{}, 'url is required'],
    [{ url: 42 }, 'url must be a string'],
    [{ url: 'ftp://example.com/' }, 'url must start with https://'],
    [{ url: 'https://example.com/', events: [] }, 'events must have'],
    [{ url: 'https://example.com/', events: ['key.eaten'] }, 'events.0 must be one of'],
    [{ url: 'https://example.com/', secret: 'mine' }, 'secret is not an accepted field'],
  ])('when the body is %j, then 400 invalid_body names the field', async (body, message) => {
    const accountId = await anAccount();
    expectError(await admin().post(`/admin/accounts/${accountId}/webhooks`).set(auth).send(body), 400, 'invalid_body', message);
  });

  it('when the account has 10 endpoints, then an 11th is refused; an unknown account or endpoint is 404', async () => {
    const accountId = await anAccount();
    for (let i = 0; i < 10; i++) await addEndpoint(accountId);
    expectError(await admin().post(`/admin/accounts/${accountId}/webhooks`).set(auth).send({ url: receiver.url }), 400, 'invalid_body', '10 webhook endpoints');
    expectError(await admin().post('/admin/accounts/acct_00000000000000000000/webhooks').set(auth).send({ url: receiver.url }), 404, 'not_found');
    expectError(await admin().delete('/admin/webhooks/wh_00000000000000000000').set(auth), 404, 'not_found');
    expectError(await admin().get('/admin/webhooks/nonsense/deliveries').set(auth), 404, 'not_found');
  });

  it('when a test event is sent, then the receiver gets one signed delivery that standardwebhooks verifies, and the log shows it delivered', async () => {
    const accountId = await anAccount();
    const endpoint = await addEndpoint(accountId);
    const sent = await admin().post(`/admin/webhooks/${endpoint.id}/test`).set(auth);
    expect(sent.status).toBe(202);
    await waitFor(async () => (await deliveries(endpoint.id)).body[0]?.status === 'delivered', DEADLINE_MS, 'the test delivery');
    expect(receiver.verifyAll(endpoint.secret)).toEqual([{ type: 'webhook.test', timestamp: expect.any(String), data: { accountId, webhookId: endpoint.id } }]);
    expect(receiver.received[0]!.id).toBe(sent.body.eventId);
    expect((await deliveries(endpoint.id)).body).toEqual([{ eventId: sent.body.eventId, type: 'webhook.test', status: 'delivered', attempts: 1, lastResponseStatus: 204, nextAttemptAt: null }]);
  });

  it('when the receiver answers 500 twice, then the third attempt delivers, all three with one webhook-id, and the metrics count them', async () => {
    answers = (n) => (n <= 2 ? 500 : 200);
    const endpoint = await addEndpoint(await anAccount());
    await admin().post(`/admin/webhooks/${endpoint.id}/test`).set(auth).expect(202);
    await waitFor(async () => (await deliveries(endpoint.id)).body[0]?.status === 'delivered', DEADLINE_MS, 'the delivery after two failures');
    expect(receiver.received).toHaveLength(3);
    expect(new Set(receiver.received.map((delivery) => delivery.id)).size).toBe(1);
    receiver.verifyAll(endpoint.secret);
    expect((await deliveries(endpoint.id)).body[0]).toMatchObject({ status: 'delivered', attempts: 3, lastResponseStatus: 200, nextAttemptAt: null });
    const metrics = (await admin().get('/metrics').set(auth)).text;
    expect(metrics).toContain('webhook_deliveries_total{outcome="retried"} 2');
    expect(metrics).toContain('webhook_deliveries_total{outcome="delivered"} 1');
    expect(metrics).toContain('webhook_deliveries_total{outcome="failed"} 0');
    expect(metrics).toMatch(/^webhook_deliveries_pending 0$/m);
  });

  it('when the receiver always fails, then after the schedule the delivery is failed with every attempt counted', async () => {
    answers = () => 503;
    const endpoint = await addEndpoint(await anAccount());
    await admin().post(`/admin/webhooks/${endpoint.id}/test`).set(auth).expect(202);
    await waitFor(async () => (await deliveries(endpoint.id)).body[0]?.status === 'failed', DEADLINE_MS, 'the failed delivery');
    expect((await deliveries(endpoint.id)).body[0]).toMatchObject({ status: 'failed', attempts: 3, lastResponseStatus: 503, nextAttemptAt: null });
    expect(receiver.received).toHaveLength(3);
  });

  it('when there are more deliveries than a page, then a Link gives the next page, and deleting the endpoint ends it all', async () => {
    const accountId = await anAccount();
    const endpoint = await addEndpoint(accountId);
    for (let i = 0; i < 3; i++) await admin().post(`/admin/webhooks/${endpoint.id}/test`).set(auth).expect(202);
    await waitFor(() => receiver.received.length === 3, DEADLINE_MS, 'three deliveries');
    const first = await deliveries(endpoint.id, '?limit=2');
    expect(first.body).toHaveLength(2);
    const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))![1]!;
    const second = await admin().get(next).set(auth).expect(200);
    expect(second.body).toHaveLength(1);
    expect(second.headers.link).toBeUndefined();
    expect(new Set([...first.body, ...second.body].map((d: { eventId: string }) => d.eventId))).toEqual(new Set(receiver.received.map((d) => d.id)));
    expectError(await admin().get(`/admin/webhooks/${endpoint.id}/deliveries?cursor=bogus`).set(auth), 400, 'invalid_parameter', 'cursor');

    expect((await admin().delete(`/admin/webhooks/${endpoint.id}`).set(auth)).status).toBe(204);
    expectError(await admin().get(`/admin/webhooks/${endpoint.id}/deliveries`).set(auth), 404, 'not_found');
    expect((await admin().get(`/admin/accounts/${accountId}/webhooks`).set(auth)).body).toEqual([]);
    const audit = await admin().get(`/admin/audit?account=${accountId}`).set(auth);
    expect(audit.body[0]).toMatchObject({ action: 'webhook.removed', target: endpoint.id, after: null });
  });
});

describe('without WEBHOOK_ALLOW_PRIVATE', () => {
  it.each(['http://hooks.example.com/in', 'https://127.0.0.1/in', 'https://[::1]/in', 'https://[::ffff:127.0.0.1]/in', 'https://10.0.0.1/in', 'https://169.254.169.254/in', 'https://[fd00::1]/in', 'https://localhost/in'])(
    'when %s is added, then 400 invalid_body names url',
    async (url) => {
      const strict = await startGateway();
      try {
        const account = await strict.accounts.createAccount({ name: 'Strict', plan: 'free' });
        const res = await request(strict.adminApp).post(`/admin/accounts/${account.id}/webhooks`).set(auth).send({ url });
        expectError(res, 400, 'invalid_body', /^url/);
      } finally {
        await strict.close();
      }
    },
  );
});
