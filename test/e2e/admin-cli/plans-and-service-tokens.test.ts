import { verifyInternalToken } from '../../../shared/src/internal-token';
import { CLI_SECRET, useAdminCli } from '../../helpers/admin-cli';

/** The admin CLI's plans, and the service tokens it signs itself (no API call). */

const { cli } = useAdminCli();

describe('admin CLI (compiled): plans and service tokens', () => {
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
    const claims = verifyInternalToken(token, CLI_SECRET);
    expect(claims).toMatchObject({ iss: 'service:billing', aud: 'pets-service' });
    expect(claims.exp - claims.iat).toBe(60);
  });

  it.each([16, 31])('when INTERNAL_JWT_SECRET has %i characters (both services refuse it), then the token command refuses it too: exit 2 naming the variable and the minimum', async (length) => {
    const run = await cli(['token', '--service', 'billing'], { INTERNAL_JWT_SECRET: 's'.repeat(length) });
    expect(run).toMatchObject({ code: 2, stdout: '' });
    expect(run.stderr).toContain('INTERNAL_JWT_SECRET must be at least 32 characters long');
  });
});
