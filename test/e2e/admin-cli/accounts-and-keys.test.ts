import { PrincipalResolver } from '../../../gateway/src/accounts/principal-resolver';
import { ALICE, useAdminCli } from '../../helpers/admin-cli';
import { resolveKey } from '../../../gateway/test/support/resolve-key';

/** The admin CLI's changes to accounts and keys (create, show, update, roll, revoke, lift a ban), checked in the store behind the admin app. */

const { cli, store, limiter } = useAdminCli();

describe('admin CLI (compiled): accounts and keys', () => {
  it('when an operator creates an account and a key, shows, updates and revokes, then every step prints JSON and the key stops working', async () => {
    const created = await cli(['accounts', 'create', '--name', 'Acme Pets', '--plan', 'pro']);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const account = created.json();
    expect(account).toMatchObject({ id: expect.stringMatching(/^acct_/), name: 'Acme Pets', plan: 'pro', perMinute: 300, perDay: 10_000 });

    const keyRun = await cli(['keys', 'create', account.id]);
    expect(keyRun.code).toBe(0);
    const key = keyRun.json();
    expect(key).toMatchObject({ id: expect.stringMatching(/^key_/), key: expect.stringMatching(/^ask_live_/), accountId: account.id, environment: 'production' });
    const resolver = new PrincipalResolver({ store });
    expect(await resolveKey(resolver, key.key)).toMatchObject({ accountId: account.id });

    const shown = await cli(['accounts', 'show', account.id]);
    expect(shown.code).toBe(0);
    expect(shown.json()).toMatchObject({ id: account.id, perMinute: 300, usage: { minute: { used: 0, limit: 300 }, day: { limit: 10_000 } } });

    const updated = await cli(['accounts', 'update', account.id, '--per-minute', '42']);
    expect(updated.json()).toMatchObject({ perMinute: 42, overrides: { perMinute: 42, perDay: null } });
    const cleared = await cli(['accounts', 'update', account.id, '--per-minute', 'none', '--plan', 'business']);
    expect(cleared.json()).toMatchObject({ plan: 'business', perMinute: 1_000, overrides: { perMinute: null } });

    const revoked = await cli(['keys', 'revoke', key.id]);
    expect(revoked).toMatchObject({ code: 0, stderr: '' });
    expect(revoked.json()).toEqual({ id: key.id, revoked: true });
    expect(await resolveKey(resolver, key.key)).toBeNull();
    resolver.close();
  });

  it('when an operator creates a named read-only key that expires, then the key carries all three and is read-only for the gateway', async () => {
    const account = (await cli(['accounts', 'create', '--name', 'Lifecycle', '--plan', 'pro'])).json();
    const run = await cli(['keys', 'create', account.id, '--name', 'Grafana', '--read-only', '--expires-at', '2999-01-31T13:00:00+01:00']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const key = run.json();
    expect(key).toMatchObject({ name: 'Grafana', access: 'read-only', expiresAt: '2999-01-31T12:00:00.000Z', key: expect.stringMatching(/^ask_live_/) });
    const resolver = new PrincipalResolver({ store });
    expect(await resolveKey(resolver, key.key)).toMatchObject({ access: 'read-only', expiresAt: Date.parse('2999-01-31T12:00:00.000Z') });
    resolver.close();

    const past = await cli(['keys', 'create', account.id, '--expires-at', '2001-01-01T00:00:00Z']);
    expect(past).toMatchObject({ code: 1, stdout: '' });
    expect(past.stderr).toMatch(/^error: invalid_body: expiresAt must be in the future/);
  });

  it('when an operator rolls a key, then the new key is printed once, the old one expires after the grace period, the list says so and the audit trail names the operator', async () => {
    const account = (await cli(['accounts', 'create', '--name', 'Rolling', '--plan', 'pro'])).json();
    const old = (await cli(['keys', 'create', account.id, '--name', 'Exporter'])).json();
    const before = Date.now();
    const run = await cli(['keys', 'roll', old.id, '--grace-period', '1h'], { ADMIN_TOKEN: ALICE });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const rolled = run.json();
    expect(rolled).toMatchObject({ key: expect.stringMatching(/^ask_live_/), name: 'Exporter', access: 'read-write', replaces: { id: old.id } });
    expect(Date.parse(rolled.replaces.expiresAt) - before).toBeGreaterThanOrEqual(3_600_000);
    expect(Date.parse(rolled.replaces.expiresAt) - Date.now()).toBeLessThanOrEqual(3_600_000);

    const list = await cli(['keys', 'list', account.id]);
    expect(list.stdout).toMatch(new RegExp(`^${old.id} .* Exporter +read-write .* active, replaced by ${rolled.id}$`, 'm'));
    expect(list.stdout).toMatch(new RegExp(`^${rolled.id} .* Exporter +read-write .* never +never +active$`, 'm'));
    const audit = (await cli(['audit', '--account', account.id, '--limit', '2', '--json'])).json();
    expect(audit.map((entry: { actor: string; action: string; target: string }) => [entry.actor, entry.action, entry.target])).toEqual([
      ['alice', 'key.rolled', old.id],
      ['alice', 'key.created', rolled.id],
    ]);

    const again = await cli(['keys', 'roll', old.id]);
    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(again.stderr).toMatch(new RegExp(`^error: conflict: Key ${old.id} was already rolled: its replacement is key ${rolled.id}`));
    const now = await cli(['keys', 'roll', rolled.id, '--grace-period', '0']);
    expect(now.code).toBe(0);
    expect((await cli(['keys', 'list', account.id])).stdout).toMatch(new RegExp(`^${rolled.id} .* expired, replaced by ${now.json().id}$`, 'm'));
  });

  it('when a ban is lifted through the CLI, then the key is no longer banned', async () => {
    const account = (await cli(['accounts', 'create', '--name', 'Banned', '--plan', 'free'])).json();
    const key = (await cli(['keys', 'create', account.id])).json();
    const subject = { accountId: account.id, keyId: key.id, quotas: { perMinute: 1, perDay: 10 } };
    let outcome = '';
    for (let i = 0; i < 10 && outcome !== 'banned'; i++) outcome = (await limiter.consumeKey(subject)).outcome;
    expect(outcome).toBe('banned');
    const lifted = await cli(['bans', 'lift', key.id]);
    expect(lifted.code).toBe(0);
    expect(lifted.json()).toEqual({ id: key.id, banLifted: true });
    expect((await limiter.consumeKey(subject)).outcome).not.toBe('banned');
  });
});
