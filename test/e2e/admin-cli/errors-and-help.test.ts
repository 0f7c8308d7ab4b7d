import { freePort } from '../../helpers/ports';
import { useAdminCli } from '../../helpers/admin-cli';

/** What the admin CLI says when the API refuses or is away, when asked for help, and when its command line is wrong. */

const { cli } = useAdminCli();

describe('admin CLI (compiled): errors and help', () => {
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
      'accounts verify',
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
});
