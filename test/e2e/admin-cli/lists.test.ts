import { ALICE, useAdminCli } from '../../helpers/admin-cli';

/** The admin CLI's lists: accounts, keys, usage and the audit trail, as tables and as JSON. */

const { cli, limiter, board } = useAdminCli();

describe('admin CLI (compiled): lists', () => {
  /** Requests of a key as the rate-limit stage sees them: decided by the limiter, observed by the usage board. */
  async function traffic(accountId: string, keyId: string, quotas: { perMinute: number; perDay: number }, count: number) {
    for (let i = 0; i < count; i++) {
      const subject = { accountId, keyId, quotas };
      board.observe(subject, await limiter.consumeKey(subject), Date.now());
    }
  }

  const lines = (text: string) => text.trimEnd().split('\n');

  it('when accounts are listed, then a table on stdout, filtered by --plan and --search, and JSON with --json', async () => {
    const zoo = (await cli(['accounts', 'create', '--name', 'Zoölogy Lists', '--plan', 'business'])).json();
    const table = await cli(['accounts', 'list', '--search', 'zoöLOGY']);
    expect(table).toMatchObject({ code: 0, stderr: '' });
    expect(lines(table.stdout)).toEqual([
      expect.stringMatching(/^ID {21,}NAME +EMAIL +PLAN +PER MINUTE +PER DAY +CREATED \(UTC\)$/),
      expect.stringMatching(new RegExp(`^${zoo.id}  Zoölogy Lists +business +1,000 +100,000  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d$`)),
    ]);
    const json = await cli(['accounts', 'list', '--search', 'zoölogy', '--json']);
    expect(json.json()).toEqual([expect.objectContaining({ id: zoo.id, plan: 'business' })]);
    expect((await cli(['accounts', 'list', '--search', 'zoölogy', '--plan', 'free'])).stdout).toBe('No account matches.\n');
  });

  it('when there is more than a page, then the way to the next one is printed under it (on stderr with --json)', async () => {
    const first = (await cli(['accounts', 'create', '--name', 'Paged One', '--plan', 'free'])).json();
    const second = (await cli(['accounts', 'create', '--name', 'Paged Two', '--plan', 'free'])).json();
    const page = await cli(['accounts', 'list', '--search', 'paged', '--limit', '1']);
    expect(page.stdout).toContain(first.id);
    const cursor = /More: add --cursor (\S+) to see the next page\./.exec(page.stdout)?.[1];
    expect(cursor).toBeDefined();
    const next = await cli(['accounts', 'list', '--search', 'paged', '--limit', '1', '--cursor', cursor!, '--json']);
    expect(next.json()).toEqual([expect.objectContaining({ id: second.id })]);
    expect(next.stderr).toBe('');
    const jsonFirst = await cli(['accounts', 'list', '--search', 'paged', '--limit', '1', '--json']);
    expect(jsonFirst.json()).toHaveLength(1);
    expect(jsonFirst.stderr).toMatch(/^More: add --cursor \S+ to see the next page\.\n$/);
  });

  it("when an account's keys are listed, then masked keys with their last use and state, never the key", async () => {
    const account = (await cli(['accounts', 'create', '--name', 'Keys Listed', '--plan', 'free'])).json();
    const key = (await cli(['keys', 'create', account.id])).json();
    const revoked = (await cli(['keys', 'create', account.id])).json();
    await cli(['keys', 'revoke', revoked.id]);
    const run = await cli(['keys', 'list', account.id]);
    expect(run.code).toBe(0);
    expect(lines(run.stdout)).toEqual([
      expect.stringMatching(/^ID +KEY +NAME +ACCESS +CREATED \(UTC\) +EXPIRES \(UTC\) +LAST USED \(UTC\) +STATE$/),
      expect.stringMatching(new RegExp(`^${key.id}  ask_live_…${key.key.slice(-4)} +read-write  \\S+ \\S+ +never +never +active$`)),
      expect.stringMatching(new RegExp(`^${revoked.id}  ask_live_…${revoked.key.slice(-4)} +read-write  \\S+ \\S+ +never +never +revoked \\S+ \\S+$`)),
    ]);
    expect(run.stdout).not.toContain(key.key.slice(9, -4));
    expect((await cli(['keys', 'list', account.id, '--json'])).json()).toEqual([
      expect.objectContaining({ id: key.id, revokedAt: null, bannedUntil: null }),
      expect.objectContaining({ id: revoked.id, revokedAt: expect.any(String) }),
    ]);
  });

  it("when an account has more keys than a page, then keys list shows one page and the way to the next, as accounts list does (issue 24)", async () => {
    const account = (await cli(['accounts', 'create', '--name', 'Keys Paged', '--plan', 'free'])).json();
    const first = (await cli(['keys', 'create', account.id])).json();
    const second = (await cli(['keys', 'create', account.id])).json();
    const page = await cli(['keys', 'list', account.id, '--limit', '1']);
    expect(page.code).toBe(0);
    expect(page.stdout).toContain(first.id);
    expect(page.stdout).not.toContain(second.id);
    const cursor = /More: add --cursor (\S+) to see the next page\./.exec(page.stdout)?.[1];
    expect(cursor).toBeDefined();
    const next = await cli(['keys', 'list', account.id, '--limit', '1', '--cursor', cursor!, '--json']);
    expect(next.json()).toEqual([expect.objectContaining({ id: second.id })]);
    expect(next.stderr).toBe('');
    const refused = await cli(['keys', 'list', account.id, '--limit', '0']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/^error: invalid_parameter: limit must be an integer from 1 to 100/);
  });

  it('when accounts press on their limits, then usage top and usage refused show them, highest share first', async () => {
    const busy = (await cli(['accounts', 'create', '--name', 'Busy Bee', '--plan', 'enterprise', '--per-minute', '4', '--per-day', '1000'])).json();
    const calm = (await cli(['accounts', 'create', '--name', 'Calm Cat', '--plan', 'enterprise', '--per-minute', '100', '--per-day', '10'])).json();
    await traffic(busy.id, 'key_BBBBBBBBBBBBBBBBBBBB', { perMinute: 4, perDay: 1_000 }, 6);
    await traffic(calm.id, 'key_CCCCCCCCCCCCCCCCCCCC', { perMinute: 100, perDay: 10 }, 5);
    const top = await cli(['usage', 'top']);
    expect(lines(top.stdout).slice(0, 3)).toEqual([
      expect.stringMatching(/^ACCOUNT +NAME +PLAN +USED +QUOTA +SHARE$/),
      expect.stringMatching(new RegExp(`^${busy.id}  Busy Bee +enterprise +4 +4 +100%$`)),
      expect.stringMatching(new RegExp(`^${calm.id}  Calm Cat +enterprise +5 +100 +5%$`)),
    ]);
    const day = await cli(['usage', 'top', '--window', 'day', '--limit', '1', '--json']);
    expect(day.json()).toEqual([{ accountId: calm.id, name: 'Calm Cat', plan: 'enterprise', used: 5, quota: 10 }]);
    const refused = await cli(['usage', 'refused']);
    expect(lines(refused.stdout)).toContainEqual(expect.stringMatching(new RegExp(`^key_B{20}  ${busy.id}  Busy Bee +enterprise +2$`)));
    const bad = await cli(['usage', 'top', '--window', 'hour']);
    expect(bad).toMatchObject({ code: 1, stdout: '' });
    expect(bad.stderr).toMatch(/^error: invalid_parameter: window must be one of minute, day/);
  });

  it('when the acceptance question is asked, then the CLI answers who hit their limit today and who raised Acme\'s quota', async () => {
    const acme = (await cli(['accounts', 'create', '--name', 'Acme Corp', '--plan', 'pro'])).json();
    await cli(['accounts', 'update', acme.id, '--per-day', '50000'], { ADMIN_TOKEN: ALICE });
    await traffic(acme.id, 'key_AAAAAAAAAAAAAAAAAAAA', { perMinute: 2, perDay: 50_000 }, 3);

    const refused = await cli(['usage', 'refused', '--json']);
    expect(refused.json()).toContainEqual({ keyId: 'key_AAAAAAAAAAAAAAAAAAAA', accountId: acme.id, name: 'Acme Corp', plan: 'pro', refused: 1 });

    const found = (await cli(['accounts', 'list', '--search', 'acme', '--json'])).json();
    expect(found.map((a: { id: string }) => a.id)).toContain(acme.id);
    const audit = await cli(['audit', '--account', acme.id]);
    expect(audit.code).toBe(0);
    expect(lines(audit.stdout)).toEqual([
      expect.stringMatching(/^WHEN \(UTC\) +WHO +ACTION +TARGET +CHANGE$/),
      expect.stringMatching(new RegExp(`^\\S+ \\S+  alice +account\\.updated +${acme.id}  perDay: none → 50000$`)),
      expect.stringMatching(new RegExp(`^\\S+ \\S+  admin +account\\.created +${acme.id}  name: Acme Corp, plan: pro, perMinute: none, perDay: none, email: none$`)),
    ]);
    const json = await cli(['audit', '--account', acme.id, '--limit', '1', '--json']);
    expect(json.json()).toEqual([expect.objectContaining({ actor: 'alice', action: 'account.updated', before: { perDay: null }, after: { perDay: 50_000 } })]);
    expect(json.stderr).toMatch(/^More: add --cursor/);
  });
});
