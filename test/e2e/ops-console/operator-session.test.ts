import { waitFor } from '../../../tools/ports';
import { describeIfBrowser } from '../../helpers/browser';
import { ALICE, useOpsConsole } from '../../helpers/ops-console';

/**
 * The ops console in headless Chromium, as an operator uses it on one busy account: sign in, search,
 * open the account, change its plan, revoke a key, lift a ban, read the usage board and the audit
 * trail, sign out. The tests follow one another: each starts where the one before left the account.
 */

describeIfBrowser()('ops console in Chromium: an operator on an account', () => {
  const opsConsole = useOpsConsole();
  const { admin, publicRequests, openConsole, signIn, keyRow } = opsConsole;
  let acme: { id: string };
  let key: { id: string; key: string };
  let spare: { id: string; key: string };

  beforeAll(async () => {
    acme = await admin('post', '/admin/accounts', { name: 'Acme Corp', plan: 'enterprise', perMinute: 3, perDay: 1_000 });
    await admin('post', '/admin/accounts', { name: 'Globex', plan: 'free' });
    await admin('post', '/admin/accounts', { name: 'Initech', plan: 'pro' });
    key = await admin('post', `/admin/accounts/${acme.id}/keys`);
    spare = await admin('post', `/admin/accounts/${acme.id}/keys`);
    // 3 accepted, then refused until the second refusal bans the key.
    expect(await publicRequests(key.key, 5)).toEqual([200, 200, 200, 429, 429]);
    await opsConsole.gateway.usage.flush();
  });

  it('when a wrong token is given, then it is refused and nothing but the sign-in shows', async () => {
    const { page, problems } = await openConsole();
    await signIn(page, 'not-the-token');
    await page.getByText('That admin token was refused.').waitFor();
    expect(await page.locator('#accounts-view').isHidden()).toBe(true);
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('when an operator signs in, searches and opens an account, then they see its quotas, usage, 30-day chart and keys', async () => {
    const { page, problems } = await openConsole();
    await signIn(page, ALICE);
    await page.getByText('Signed in as').waitFor();
    expect(await page.locator('#actor').textContent()).toBe('alice');
    await page.locator('#accounts-table tbody tr').nth(2).waitFor();
    expect(await page.locator('#accounts-table tbody tr').count()).toBeGreaterThanOrEqual(3);

    await page.getByLabel('Name or email').fill('ACME');
    await page.getByRole('button', { name: 'Search' }).click();
    // Polled from here: page.waitForFunction evaluates its predicate in the page once it has to
    // poll, which the console's CSP forbids (it failed so when the search answered late).
    await waitFor(async () => (await page.locator('#accounts-table tbody tr').count()) === 1, 60_000, 'the search to leave one account');
    await page.getByRole('link', { name: 'Acme Corp' }).click();

    await page.getByRole('heading', { name: 'Acme Corp' }).waitFor();
    const facts = await page.locator('#account-facts').textContent();
    expect(facts).toContain('3 (override)');
    expect(facts).toContain('1,000 (override)');
    expect(await page.locator('#account-usage').textContent()).toContain('3 of 3');
    const chart = page.locator('#history-chart svg');
    expect(await chart.getAttribute('data-total')).toBe('3');
    expect(await chart.locator('rect.bar').count()).toBe(30);
    expect(await chart.locator('rect.bar.today').getAttribute('data-accepted')).toBe('3');
    // The portal's chart, drawn by the gateway for both.
    expect(await chart.getAttribute('class')).toBe('usage-chart');
    expect(await chart.locator('title').first().textContent()).toMatch(/^Accepted requests per UTC day, \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d$/);
    expect(await chart.locator('desc').textContent()).toMatch(/^3 accepted requests over 30 days/);
    expect(await keyRow(page, key.id).textContent()).toContain(`ask_live_…${key.key.slice(-4)}`);
    expect(await keyRow(page, key.id).textContent()).toContain('banned until');
    expect(await page.content()).not.toContain(key.key);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('when the operator changes the plan, revokes a key and lifts a ban, then each takes effect and its audit entry appears under their name', async () => {
    const { page, problems } = await openConsole();
    await signIn(page, ALICE);
    await page.goto(`${opsConsole.consoleUrl}#account/${acme.id}`);
    await page.getByRole('heading', { name: 'Acme Corp' }).waitFor();

    await page.getByRole('combobox', { name: 'Plan', exact: true }).selectOption('enterprise');
    await page.getByLabel(/Per-minute override/).fill('500');
    await page.getByLabel(/Per-day override/).fill('50000');
    await page.getByRole('button', { name: 'Save plan and quotas' }).click();
    await page.getByText('Plan and quotas saved.').waitFor();
    expect(await page.locator('#account-facts').textContent()).toContain('50,000 (override)');
    expect((await admin<{ perDay: number }>('get', `/admin/accounts/${acme.id}`)).perDay).toBe(50_000);
    const auditRows = page.locator('#account-audit-table tbody tr');
    expect(await auditRows.first().textContent()).toMatch(/alice.*account\.updated.*perMinute: 3, perDay: 1000.*perMinute: 500, perDay: 50000/);

    await keyRow(page, key.id).getByRole('button', { name: 'Lift ban' }).click();
    await page.getByText(`Ban of ${key.id} lifted.`).waitFor();
    expect(await keyRow(page, key.id).textContent()).toContain('active');
    expect(await auditRows.first().textContent()).toMatch(new RegExp(`alice.*ban\\.lifted.*${key.id}`));
    expect(await publicRequests(key.key, 1)).toEqual([200]);

    expect(await publicRequests(spare.key, 1, '/v1/pets')).toEqual([502]);
    await keyRow(page, spare.id).getByRole('button', { name: 'Revoke' }).click();
    await page.getByText(`Key ${spare.id} revoked.`).waitFor();
    expect(await keyRow(page, spare.id).textContent()).toContain('revoked');
    expect(await keyRow(page, spare.id).getByRole('button').count()).toBe(0);
    expect(await auditRows.first().textContent()).toMatch(new RegExp(`alice.*key\\.revoked.*${spare.id}`));
    expect(await publicRequests(spare.key, 1, '/v1/pets')).toEqual([401]);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('when the operator opens the usage board and the audit trail, then Acme is on them', async () => {
    const { page, problems } = await openConsole();
    await signIn(page, ALICE);
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByLabel('Window').selectOption('day');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.locator('#usage-table tbody tr').first().waitFor();
    expect(await page.locator('#usage-table tbody').textContent()).toContain('Acme Corp');
    expect(await page.locator('#refused-table tbody tr').first().textContent()).toMatch(new RegExp(`${key.id}.*Acme Corp.*2`));

    await page.getByRole('link', { name: 'Audit trail' }).click();
    await page.locator('#audit-table tbody tr').first().waitFor();
    const trail = await page.locator('#audit-table tbody').textContent();
    expect(trail).toMatch(new RegExp(`admin\\s*account\\.created\\s*${acme.id}`));

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
