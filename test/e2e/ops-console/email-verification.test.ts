import { describeIfBrowser } from '../../helpers/browser';
import { ALICE, useOpsConsole } from '../../helpers/ops-console';
import { PortalVisitor } from '../../../gateway/test/support/portal-visitor';

/** The ops console shows whether a portal account's email is verified, and marks it verified (audited). */
describeIfBrowser()('ops console in Chromium: email verification', () => {
  const opsConsole = useOpsConsole();
  const { admin, openConsole, signIn } = opsConsole;

  it('when an operator opens a portal account not yet verified, then the console says so and "Mark email verified" verifies it', async () => {
    const email = `unverified.${Date.now()}@example.com`;
    expect((await new PortalVisitor(opsConsole.gateway.publicApp).signUp(email, 'correct horse battery staple')).status).toBe(303);
    const [account] = await admin<Array<{ id: string }>>('get', `/admin/accounts?q=${encodeURIComponent(email)}`);

    const { page, problems } = await openConsole();
    await signIn(page, ALICE);
    await page.getByLabel('Name or email').fill(email);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: email }).click();
    await page.getByRole('heading', { name: email }).waitFor();
    expect(await page.locator('#account-facts').textContent()).toContain('Email verifiedno');

    await page.getByRole('button', { name: 'Mark email verified' }).click();
    await page.getByText('Email marked verified').waitFor();
    expect(await page.locator('#account-facts').textContent()).toMatch(/Email verifiedyes \(/);
    expect(await admin('get', `/admin/accounts/${account!.id}`)).toMatchObject({ emailVerified: true });
    const audit = await admin<Array<{ actor: string; action: string }>>('get', `/admin/audit?limit=5`);
    expect(audit[0]).toMatchObject({ actor: 'alice', action: 'account.email_verified' });
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
