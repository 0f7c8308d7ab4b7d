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

/** The compiled CLI (built by jest's globalSetup) against an admin app this test serves on a free port. */

const TOKEN = 'cli-test-admin-token-0123456789';
const SECRET = 'cli-test-internal-secret-0123456789';

let server: Server;
let adminUrl: string;
let store: MemoryAccountStore;
let limiter: MemoryLimiter;

beforeAll(async () => {
  const parts = opsParts({ ban: { threshold: 3, seconds: 900 } });
  store = parts.store as MemoryAccountStore;
  limiter = parts.limiter;
  const app = createAdminApp({ service: parts.service, reports: parts.reports, adminToken: TOKEN, logger: createLogger('cli-test', 'silent') });
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
    expect(key).toMatchObject({ id: expect.stringMatching(/^key_/), key: expect.stringMatching(/^ask_live_/), accountId: account.id });
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
    for (const command of ['accounts create', 'accounts show', 'accounts update', 'keys create', 'keys revoke', 'bans lift', 'plans list', 'plans set', 'token']) {
      expect(general.stdout).toContain(command);
    }
    const one = await cli(['plans', 'set', '--help']);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('Usage: npm run admin -- plans set NAME --per-minute N --per-day N');
  });

  it.each([
    ['no command at all', [], /Usage:/],
    ['an unknown command', ['acounts', 'list'], /unknown command "acounts"/],
    ['a missing required option', ['accounts', 'create', '--plan', 'free'], /needs --name/],
    ['an unknown option', ['plans', 'list', '--verbose'], /Unknown option '--verbose'/],
    ['a missing argument', ['keys', 'revoke'], /needs KEY_ID/],
    ['a quota that is not a number', ['plans', 'set', 'pro', '--per-minute', 'lots', '--per-day', '1'], /--per-minute must be a positive integer/],
    ['an update with nothing to change', ['accounts', 'update', 'acct_x'], /nothing to update/],
    ['a ttl over 300 seconds', ['token', '--service', 'billing', '--ttl', '301'], /--ttl must be an integer from 1 to 300/],
  ])('when the command line has %s, then a usage error on stderr and exit 2', async (_what, args, message) => {
    const run = await cli(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });

  it('when no admin token is configured, then exit 2 telling how to give one', async () => {
    const run = await cli(['plans', 'list'], { ADMIN_TOKEN: undefined });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('ADMIN_TOKEN');
  });
});
