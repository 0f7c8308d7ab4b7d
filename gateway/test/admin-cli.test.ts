import { execFile } from 'node:child_process';
import type { Server } from 'node:http';
import { createLogger } from '../../shared/src/logger';
import { verifyInternalToken } from '../../shared/src/internal-token';
import { MemoryAccountStore } from '../src/accounts/memory-account-store';
import { PrincipalResolver } from '../src/accounts/principal-resolver';
import { createAdminApp } from '../src/admin/app';
import { MemoryLimiter } from '../src/limits/memory-limiter';
import { freePort } from '../../test/helpers/ports';
import { COMPILED, ROOT } from '../../test/helpers/processes';
import { opsParts } from './support/ops';
import type { UsageBoard } from '../src/usage/usage-board';

/** The compiled CLI (built by jest's globalSetup) against an admin app this test serves on a free port. */

const TOKEN = 'cli-test-admin-token-0123456789';
const SECRET = 'cli-test-internal-secret-0123456789';

let server: Server;
let adminUrl: string;
let store: MemoryAccountStore;
let limiter: MemoryLimiter;
let board: UsageBoard;
const ALICE = 'alice-cli-token-0123456789';

beforeAll(async () => {
  const parts = opsParts({ ban: { threshold: 3, seconds: 900 } });
  store = parts.store as MemoryAccountStore;
  limiter = parts.limiter;
  board = parts.board;
  const app = createAdminApp({
    service: parts.service,
    reports: parts.reports,
    adminToken: TOKEN,
    adminTokens: [{ name: 'alice', token: ALICE }],
    logger: createLogger('cli-test', 'silent'),
  });
  const port = await freePort();
  adminUrl = `http://127.0.0.1:${port}`;
  await new Promise<void>((resolve) => {
    server = app.listen(port, '127.0.0.1', () => resolve());
  });
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  json: () => any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Asynchronous on purpose: the admin app answering the CLI lives in this very process. */
function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [COMPILED.adminCli, ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH, ADMIN_URL: adminUrl, ADMIN_TOKEN: TOKEN, INTERNAL_JWT_SECRET: SECRET, ...env } as NodeJS.ProcessEnv },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr, json: () => JSON.parse(stdout) });
      },
    );
  });
}

describe('admin CLI (compiled)', () => {
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
    expect(await resolver.resolve(key.key)).toMatchObject({ accountId: account.id });

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
    expect(await resolver.resolve(key.key)).toBeNull();
    resolver.close();
  });

  it('when an operator creates a named read-only key that expires, then the key carries all three and is read-only for the gateway', async () => {
    const account = (await cli(['accounts', 'create', '--name', 'Lifecycle', '--plan', 'pro'])).json();
    const run = await cli(['keys', 'create', account.id, '--name', 'Grafana', '--read-only', '--expires-at', '2999-01-31T13:00:00+01:00']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const key = run.json();
    expect(key).toMatchObject({ name: 'Grafana', access: 'read-only', expiresAt: '2999-01-31T12:00:00.000Z', key: expect.stringMatching(/^ask_live_/) });
    const resolver = new PrincipalResolver({ store });
    expect(await resolver.resolve(key.key)).toMatchObject({ access: 'read-only', expiresAt: Date.parse('2999-01-31T12:00:00.000Z') });
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

  it('when a plan is set and the plans are listed, then the new numbers show', async () => {
    const set = await cli(['plans', 'set', 'free', '--per-minute', '90', '--per-day', '1500']);
    expect(set.code).toBe(0);
    expect(set.json()).toEqual({ name: 'free', perMinute: 90, perDay: 1_500 });
    const list = await cli(['plans', 'list']);
    expect(list.json()).toContainEqual({ name: 'free', perMinute: 90, perDay: 1_500 });
    expect(list.json()).toHaveLength(4);
  });

  it('when a service token is asked for, then a token the pets-service accepts is printed, without any API call', async () => {
    const run = await cli(['token', '--service', 'billing', '--ttl', '60'], { ADMIN_URL: 'http://127.0.0.1:1', ADMIN_TOKEN: undefined });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const { token, issuer } = run.json();
    expect(issuer).toBe('service:billing');
    const claims = verifyInternalToken(token, SECRET);
    expect(claims).toMatchObject({ iss: 'service:billing', aud: 'pets-service' });
    expect(claims.exp - claims.iat).toBe(60);
  });

  it.each([16, 31])('when INTERNAL_JWT_SECRET has %i characters (both services refuse it), then the token command refuses it too: exit 2 naming the variable and the minimum', async (length) => {
    const run = await cli(['token', '--service', 'billing'], { INTERNAL_JWT_SECRET: 's'.repeat(length) });
    expect(run).toMatchObject({ code: 2, stdout: '' });
    expect(run.stderr).toContain('INTERNAL_JWT_SECRET must be at least 32 characters long');
  });

  it('when the API refuses, then "error: <code>: <message>" on stderr and exit 1', async () => {
    const missing = await cli(['accounts', 'show', 'acct_AAAAAAAAAAAAAAAAAAAA']);
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toMatch(/^error: not_found: /);
    const enterprise = await cli(['plans', 'set', 'enterprise', '--per-minute', '1', '--per-day', '2']);
    expect(enterprise.code).toBe(1);
    expect(enterprise.stderr).toMatch(/^error: invalid_body: .*enterprise/);
    const invalid = await cli(['accounts', 'create', '--name', 'X', '--plan', 'gold']);
    expect(invalid.stderr).toMatch(/^error: invalid_body: plan must be one of/);
    const wrongToken = await cli(['plans', 'list'], { ADMIN_TOKEN: 'wrong' });
    expect(wrongToken.code).toBe(1);
    expect(wrongToken.stderr).toMatch(/^error: unauthorized: /);
  });

  it('when the admin API cannot be reached, then an error naming the address and exit 1', async () => {
    const port = await freePort();
    const run = await cli(['plans', 'list'], { ADMIN_URL: `http://127.0.0.1:${port}` });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cannot reach the admin API at http://127.0.0.1:${port}`);
  });

  it('when --help is given, then the commands are listed on stdout with exit 0, for the tool and for one command', async () => {
    const general = await cli(['--help']);
    expect(general.code).toBe(0);
    for (const command of [
      'accounts create',
      'accounts show',
      'accounts update',
      'accounts list',
      'keys create',
      'keys roll',
      'keys list',
      'keys revoke',
      'bans lift',
      'plans list',
      'plans set',
      'usage top',
      'usage refused',
      'audit',
      'token',
    ]) {
      expect(general.stdout).toContain(command);
    }
    const one = await cli(['plans', 'set', '--help']);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('Usage: npm run admin -- plans set NAME --per-minute N --per-day N');
  });

  it.each([
    ['no command at all', [], /Usage:/],
    ['an unknown command', ['acounts', 'list'], /unknown command 'acounts'/],
    ['a missing required option', ['accounts', 'create', '--plan', 'free'], /required option '--name <NAME>' not specified/],
    ['an unknown option', ['plans', 'list', '--verbose'], /unknown option '--verbose'/],
    ['a missing argument', ['keys', 'revoke'], /missing required argument 'KEY_ID'/],
    ['a quota that is not a number', ['plans', 'set', 'pro', '--per-minute', 'lots', '--per-day', '1'], /--per-minute must be a positive integer/],
    ['an update with nothing to change', ['accounts', 'update', 'acct_x'], /nothing to update/],
    ['a ttl over 300 seconds', ['token', '--service', 'billing', '--ttl', '301'], /--ttl must be an integer from 1 to 300/],
    ['a grace period that is not a duration', ['keys', 'roll', 'key_x', '--grace-period', 'soon'], /--grace-period must be a number of seconds, or a number followed by s, m, h or d/],
    ['a value for --read-only', ['keys', 'create', 'acct_x', '--read-only=yes'], /--read-only/],
  ])('when the command line has %s, then a usage error on stderr and exit 2', async (_what, args, message) => {
    const run = await cli(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
    if (args.length > 0) expect(run.stderr).toMatch(/Run "npm run admin -- .*--help" for usage\.\n$/);
  });

  it('when no admin token is configured, then exit 2 telling how to give one', async () => {
    const run = await cli(['plans', 'list'], { ADMIN_TOKEN: undefined });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('ADMIN_TOKEN');
  });

  describe('lists', () => {
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
});
