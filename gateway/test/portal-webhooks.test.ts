import { waitFor } from '../../test/helpers/ports';
import { WebhookReceiver } from '../../test/helpers/webhook-receiver';
import { startPortalGateway, signedUpOn } from './support/portal';
import { PortalVisitor, csrfTokenIn } from './support/portal-visitor';
import type { Gateway } from '../src/gateway';

/** The portal's "Webhooks" page: add (the secret shown once), list, send a test event, deliveries, delete; only the account's own endpoints. */

let gateway: Gateway;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  gateway = await startPortalGateway({ WEBHOOK_ALLOW_PRIVATE: 'true' });
});
afterAll(async () => {
  await gateway?.close();
  await receiver?.close();
});

const secretIn = (page: string) => /<code id="webhook-secret" class="secret">(whsec_[^<]+)<\/code>/.exec(page)?.[1];
const webhookIdIn = (page: string) => /data-webhook-id="(wh_[0-9A-Za-z]{20})"/.exec(page)?.[1];

it('when an owner adds an endpoint, then the secret is shown once, a test event is delivered and listed, and deleting it removes it', async () => {
  const { browser } = await signedUpOn(gateway);
  expect((await browser.get('/portal')).text).toContain('href="/portal/webhooks"');
  const page = await browser.get('/portal/webhooks');
  expect(page.status).toBe(200);
  expect(page.text).toContain('No endpoints yet.');

  const added = await browser.post('/portal/webhooks', { _csrf: csrfTokenIn(page.text), url: receiver.url });
  expect(added.status).toBe(201);
  const secret = secretIn(added.text)!;
  const webhookId = webhookIdIn(added.text)!;
  expect(secret).toMatch(/^whsec_/);
  const listed = await browser.get('/portal/webhooks');
  expect(listed.text).toContain(receiver.url);
  expect(listed.text).not.toContain(secret);

  const tested = await browser.post(`/portal/webhooks/${webhookId}/test`, { _csrf: csrfTokenIn(listed.text) });
  expect(tested.status).toBe(303);
  expect(tested.headers.location).toBe(`/portal/webhooks/${webhookId}/deliveries?test=1`);
  await waitFor(() => receiver.received.length === 1, 10_000, 'the test event');
  expect(receiver.verifyAll(secret)[0]!.type).toBe('webhook.test');
  await waitFor(async () => (await browser.get(`/portal/webhooks/${webhookId}/deliveries`)).text.includes('<td>delivered</td>'), 10_000, 'the delivery listed');
  expect((await browser.get(`/portal/webhooks/${webhookId}/deliveries`)).text).toContain(`data-event-id="${receiver.received[0]!.id}"`);

  const deleted = await browser.post(`/portal/webhooks/${webhookId}/delete`, { _csrf: csrfTokenIn(listed.text) });
  expect(deleted.status).toBe(303);
  expect((await browser.get(deleted.headers.location as string)).text).toContain(`Endpoint ${webhookId} deleted`);
  expect((await browser.get('/portal/webhooks')).text).not.toContain(receiver.url);
});

it('when the URL is refused, then the page says why and keeps what was typed; a form without the session token is refused', async () => {
  const { browser } = await signedUpOn(gateway);
  const page = await browser.get('/portal/webhooks');
  const refused = await browser.post('/portal/webhooks', { _csrf: csrfTokenIn(page.text), url: 'ftp://example.com/in' });
  expect(refused.status).toBe(400);
  expect(refused.text).toContain('url must start with https://');
  expect(refused.text).toContain('value="ftp://example.com/in"');
  expect((await browser.post('/portal/webhooks', { _csrf: 'x'.repeat(43), url: receiver.url })).status).toBe(403);
  expect((await browser.post('/portal/webhooks', { _csrf: csrfTokenIn(page.text), url: receiver.url }, { Origin: 'https://evil.example' })).status).toBe(403);
});

it("when another account asks for an endpoint's deliveries, tests or deletes it, then it does not exist for them", async () => {
  const owner = await signedUpOn(gateway);
  const added = await owner.browser.post('/portal/webhooks', { _csrf: csrfTokenIn((await owner.browser.get('/portal/webhooks')).text), url: receiver.url });
  const webhookId = webhookIdIn(added.text)!;
  const intruder = await signedUpOn(gateway);
  const token = csrfTokenIn((await intruder.browser.get('/portal/webhooks')).text);
  expect((await intruder.browser.get(`/portal/webhooks/${webhookId}/deliveries`)).status).toBe(404);
  expect((await intruder.browser.post(`/portal/webhooks/${webhookId}/test`, { _csrf: token })).status).toBe(404);
  expect((await intruder.browser.post(`/portal/webhooks/${webhookId}/delete`, { _csrf: token })).status).toBe(404);
  expect((await owner.browser.get('/portal/webhooks')).text).toContain(webhookId);
  expect((await new PortalVisitor(gateway.publicApp).get('/portal/webhooks')).status).toBe(401);
});

it('when the owner creates a key in the portal, then key.created reaches the endpoint as it does from the admin API', async () => {
  const { browser } = await signedUpOn(gateway);
  const added = await browser.post('/portal/webhooks', { _csrf: csrfTokenIn((await browser.get('/portal/webhooks')).text), url: receiver.url });
  const secret = secretIn(added.text)!;
  const before = receiver.received.length;
  const { keyId } = await browser.createKey({ name: 'from the portal' });
  await waitFor(() => receiver.received.length === before + 1, 10_000, 'key.created from the portal');
  const [payload] = receiver.verifyAll(secret, before);
  expect(payload).toMatchObject({ type: 'key.created', data: { keyId, name: 'from the portal', access: 'read-write', expiresAt: null } });
});
