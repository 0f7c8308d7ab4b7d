import { useAdminCli } from '../../helpers/admin-cli';
import { waitFor } from '../../helpers/ports';
import { WebhookReceiver } from '../../helpers/webhook-receiver';

/** The admin CLI's webhook commands: add (the secret printed once), list, test, deliveries, delete. */

const { cli } = useAdminCli();
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
});
afterAll(async () => {
  await receiver.close();
});

it('when an endpoint is added, tested, listed with its deliveries and deleted, then each command prints what the API answered', async () => {
  const account = (await cli(['accounts', 'create', '--name', 'Hooks CLI', '--plan', 'free'])).json();
  const added = await cli(['webhooks', 'add', account.id, receiver.url, '--events', 'webhook.test,key.created']);
  expect(added).toMatchObject({ code: 0, stderr: '' });
  const endpoint = added.json();
  expect(endpoint).toMatchObject({ url: receiver.url, events: ['webhook.test', 'key.created'], secret: expect.stringMatching(/^whsec_/) });

  const list = await cli(['webhooks', 'list', account.id]);
  expect(list.stdout).toMatch(new RegExp(`^ID +URL +EVENTS +CREATED \\(UTC\\) +STATE\\n${endpoint.id}  ${receiver.url}  webhook.test,key.created  .+  enabled\\n$`));
  expect(list.stdout).not.toContain(endpoint.secret);

  const tested = await cli(['webhooks', 'test', endpoint.id]);
  expect(tested.json()).toEqual({ eventId: expect.stringMatching(/^evt_/) });
  await waitFor(() => receiver.received.length === 1, 10_000, 'the test delivery');
  receiver.verifyAll(endpoint.secret);
  await waitFor(async () => (await cli(['webhooks', 'deliveries', endpoint.id])).stdout.includes('delivered'), 10_000, 'the delivery listed');
  const deliveries = await cli(['webhooks', 'deliveries', endpoint.id]);
  expect(deliveries.stdout).toMatch(new RegExp(`^EVENT +TYPE +STATUS +ATTEMPTS +LAST ANSWER +NEXT ATTEMPT \\(UTC\\)\\n${tested.json().eventId}  webhook.test  delivered +1 +204 *\\n$`));

  expect((await cli(['webhooks', 'delete', endpoint.id])).json()).toEqual({ id: endpoint.id, deleted: true });
  expect((await cli(['webhooks', 'list', account.id])).stdout).toBe('This account has no webhook endpoints.\n');
  const refused = await cli(['webhooks', 'add', account.id, 'ftp://example.com/']);
  expect(refused).toMatchObject({ code: 1, stdout: '' });
  expect(refused.stderr).toMatch(/^error: invalid_body: url must start with https:\/\//);
});
