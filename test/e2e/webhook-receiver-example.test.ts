import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { ADMIN_TOKEN, startGateway } from '../../gateway/test/support/gateway';
import type { Gateway } from '../../gateway/src/gateway';
import { freePort, waitFor } from '../helpers/ports';
import { ROOT, ServiceProcess } from '../helpers/processes';

/** README's receiver example, run as it is written (a process of its own), verifies the gateway's deliveries and refuses a forged one. */

const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };
let gateway: Gateway | undefined;
let receiver: ServiceProcess | undefined;
let folder: string | undefined;

afterEach(async () => {
  await receiver?.stop();
  await gateway?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

function readmeExample(): string {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const block = /<!-- webhook-receiver-example -->\n```js\n([\s\S]*?)```\n<!-- \/webhook-receiver-example -->/.exec(readme);
  if (!block) throw new Error('README.md has no webhook receiver example between its markers');
  return block[1]!;
}

it('when the gateway delivers to the README example, then it answers 204 to a signed event and 400 to a forged one', async () => {
  gateway = await startGateway({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  const account = await gateway.accounts.createAccount({ name: 'Receiver', plan: 'free' });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/webhooks/animal-store`;
  const endpoint = await request(gateway.adminApp).post(`/admin/accounts/${account.id}/webhooks`).set(auth).send({ url }).expect(201);

  folder = mkdtempSync(path.join(os.tmpdir(), 'webhook-receiver-'));
  const script = path.join(folder, 'receiver.js');
  writeFileSync(script, readmeExample());
  // The example's require()s resolve from the repository's packages, as in a project that installed them.
  receiver = ServiceProcess.spawn(script, { PORT: String(port), WEBHOOK_SECRET: endpoint.body.secret, NODE_PATH: path.join(ROOT, 'node_modules') });
  await waitFor(async () => (await fetch(url, { method: 'POST' }).catch(() => null)) !== null, 10_000, 'the example receiver listening');

  const eventId = (await request(gateway.adminApp).post(`/admin/webhooks/${endpoint.body.id}/test`).set(auth).expect(202)).body.eventId as string;
  const deliveries = async () => (await request(gateway!.adminApp).get(`/admin/webhooks/${endpoint.body.id}/deliveries`).set(auth)).body as { eventId: string; status: string; lastResponseStatus: number }[];
  await waitFor(async () => (await deliveries())[0]?.status === 'delivered', 10_000, 'the delivery');
  expect((await deliveries())[0]).toMatchObject({ eventId, lastResponseStatus: 204 });
  expect(receiver.output).toContain('webhook.test');

  const forged = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'webhook-id': 'evt_forged', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
    body: '{"type":"key.revoked","timestamp":"2030-01-01T00:00:00.000Z","data":{}}',
  });
  expect(forged.status).toBe(400);
});
