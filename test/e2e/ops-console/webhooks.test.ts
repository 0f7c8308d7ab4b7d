import { describeIfBrowser } from '../../helpers/browser';
import { useOpsConsole } from '../../helpers/ops-console';
import { waitFor } from '../../helpers/ports';
import { WebhookReceiver } from '../../helpers/webhook-receiver';

/** An account's webhook endpoints in the ops console (headless Chromium). */

describeIfBrowser()('ops console in Chromium: webhooks', () => {
  const { openNewAccount } = useOpsConsole();

  it('when the operator adds an endpoint, sends a test event and deletes it, then the secret is shown once, the deliveries list it, and the audit names the changes', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const { page, problems } = await openNewAccount('Initech Hooks');
      await page.getByLabel(/^Endpoint URL/).fill(receiver.url);
      await page.getByRole('button', { name: 'Add the endpoint' }).click();
      await page.getByText(/^Webhook endpoint wh_\w+ added\.$/).waitFor();
      const secret = (await page.locator('#new-webhook-secret').textContent())!;
      expect(secret).toMatch(/^whsec_/);
      const row = page.locator('#webhooks-table tbody tr');
      expect(await row.textContent()).toContain(receiver.url);

      await row.getByRole('button', { name: 'Send a test event' }).click();
      await waitFor(() => receiver.received.length === 1, 10_000, 'the test event at the receiver');
      expect(receiver.verifyAll(secret)[0]!.type).toBe('webhook.test');
      await waitFor(async () => {
        await row.getByRole('button', { name: 'Deliveries' }).click();
        return (await page.locator('#deliveries-table tbody tr td:nth-child(3)').first().textContent()) === 'delivered';
      }, 10_000, 'the delivery listed as delivered');

      await row.getByRole('button', { name: 'Delete' }).click();
      await page.getByText(/^Webhook endpoint wh_\w+ deleted\.$/).waitFor();
      expect(await page.locator('#webhooks-table tbody tr').count()).toBe(0);
      const audit = page.locator('#account-audit-table tbody tr');
      expect(await audit.first().textContent()).toMatch(/alice.*webhook\.removed/);
      expect(await audit.nth(1).textContent()).toMatch(/alice.*webhook\.added/);
      expect(await page.content()).not.toContain(secret);
      expect(problems).toEqual([]);
      await page.context().close();
    } finally {
      await receiver.close();
    }
  });
});
