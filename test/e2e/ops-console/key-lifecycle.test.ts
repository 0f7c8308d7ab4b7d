import request from 'supertest';
import { describeIfBrowser } from '../../helpers/browser';
import { useOpsConsole } from '../../helpers/ops-console';
import { ADMIN_TOKEN } from '../../../gateway/test/support/gateway';

/** Keys made and rolled in the ops console (headless Chromium), each test on a new account of its own. */

describeIfBrowser()('ops console in Chromium: keys', () => {
  const opsConsole = useOpsConsole();
  const { admin, publicRequests, keyRow, openNewAccount } = opsConsole;

  it('when the operator creates a named read-only key with an expiry and rolls it, then the keys table and the API follow, and the audit names them', async () => {
    const { page, problems, account: globex } = await openNewAccount('Globex Keys');

    await page.getByLabel(/^Key name/).fill('Reporting');
    await page.getByLabel(/Expires at, UTC/).fill('2999-01-31T12:30:00');
    await page.getByLabel(/Read-only/).check();
    await page.getByRole('button', { name: 'Create a key' }).click();
    await page.getByText(/^Key key_\w+ created\.$/).waitFor();
    const created = (await page.locator('#new-key-value').textContent())!;
    const [listed] = await admin<Array<{ id: string; name: string; access: string; expiresAt: string }>>('get', `/admin/accounts/${globex.id}/keys`);
    expect(listed).toMatchObject({ name: 'Reporting', access: 'read-only', expiresAt: '2999-01-31T12:30:00.000Z' });
    expect(await keyRow(page, listed!.id).textContent()).toMatch(/Reporting.*read-only.*2999-01-31 12:30:00.*active/);
    expect(await publicRequests(created, 1, '/v1/pets')).toEqual([502]);
    expect((await request(opsConsole.gateway.publicApp).post('/v1/pets').set('Authorization', `Bearer ${created}`)).status).toBe(403);

    await keyRow(page, listed!.id).getByRole('button', { name: 'Roll…' }).click();
    await page.getByLabel(/^Grace period/).fill('0');
    await page.getByLabel('Unit of the grace period').selectOption({ label: 'seconds' });
    await page.getByRole('button', { name: 'Roll key' }).click();
    await page.getByText(new RegExp(`^Key ${listed!.id} rolled: the new key is key_\\w+\\.$`)).waitFor();
    const rolled = (await page.locator('#new-key-value').textContent())!;
    expect(rolled).not.toBe(created);
    expect(await page.locator('#new-key-replaces').textContent()).toContain(`It replaces ${listed!.id}`);
    const newKeyId = (await admin<Array<{ id: string }>>('get', `/admin/accounts/${globex.id}/keys`))[1]!.id;
    expect(await keyRow(page, listed!.id).textContent()).toContain(`expired, replaced by ${newKeyId}`);
    expect(await keyRow(page, listed!.id).getByRole('button').count()).toBe(0);
    expect(await keyRow(page, newKeyId).textContent()).toMatch(/Reporting.*read-only.*never.*active/);

    const refused = await request(opsConsole.gateway.publicApp).get('/v1/pets').set('Authorization', `Bearer ${created}`);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toContain(`its replacement is key ${newKeyId}`);
    expect(await publicRequests(rolled, 1, '/v1/pets')).toEqual([502]);
    const auditRows = page.locator('#account-audit-table tbody tr');
    expect(await auditRows.first().textContent()).toMatch(new RegExp(`alice.*key\\.rolled.*${listed!.id}.*replacedBy: ${newKeyId}`));
    expect(await auditRows.nth(1).textContent()).toMatch(new RegExp(`alice.*key\\.created.*${newKeyId}.*rolledFrom: ${listed!.id}`));
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('when an account has more keys than a page, then ten are shown and "More keys" adds the rest, oldest first, like the other listings (issue 24)', async () => {
    const { page, problems, account } = await openNewAccount('Hooli Keys');
    const made: string[] = [];
    const create = async () => made.push((await admin<{ id: string }>('post', `/admin/accounts/${account.id}/keys`)).id);
    for (let i = 0; i < 10; i++) await create();
    // An account holds at most ten active keys: one revoked makes room for the eleventh.
    expect((await request(opsConsole.gateway.adminApp).delete(`/admin/keys/${made[0]}`).set('Authorization', `Bearer ${ADMIN_TOKEN}`)).status).toBe(204);
    await create();
    await page.reload();
    await page.getByRole('heading', { name: 'Hooli Keys' }).waitFor();
    const rows = page.locator('#keys-table tbody tr');
    await rows.nth(9).waitFor();
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-key-id')))).toEqual(made.slice(0, 10));
    await page.getByRole('button', { name: 'More keys' }).click();
    await rows.nth(10).waitFor();
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-key-id')))).toEqual(made);
    expect(await page.getByRole('button', { name: 'More keys' }).isHidden()).toBe(true);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('when the operator asks for a key that expires in the past, then the form says why and no key is made', async () => {
    const { page, problems, account: initech } = await openNewAccount('Initech Keys');
    await page.getByLabel(/Expires at, UTC/).fill('2001-01-01T00:00:00');
    await page.getByRole('button', { name: 'Create a key' }).click();
    await page.getByText(/^expiresAt must be in the future/).waitFor();
    expect(await admin('get', `/admin/accounts/${initech.id}/keys`)).toEqual([]);
    expect(problems.filter((problem) => !/status of 400/.test(problem))).toEqual([]);
    await page.context().close();
  });
});
