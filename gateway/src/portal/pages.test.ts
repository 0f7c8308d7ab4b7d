import type { AccountDetails } from '../accounts/account-views';
import { dashboardPage } from './dashboard-page';
import { formatInstant, type PageContext } from './pages';
import type { KeyView } from './portal-keys';
import type { Dashboard } from './portal-service';

const context: PageContext = { environment: 'staging', assetVersion: 'abc123', signedIn: { csrfToken: 'csrf-token', email: 'ann@example.com' } };

const account: AccountDetails = {
  id: 'acct_00000000000000000001',
  name: 'ann@example.com',
  plan: 'free',
  perMinute: 60,
  perDay: 1000,
  overrides: { perMinute: null, perDay: null },
  email: 'ann@example.com',
  createdAt: '2026-01-02T03:04:05.000Z',
  usage: {
    minute: { used: 7, limit: 60, remaining: 53, resetAt: '2026-01-05T10:01:00.000Z' },
    day: { used: 70, limit: 1000, remaining: 930, resetAt: '2026-01-06T00:00:00.000Z' },
  },
  history: [],
};

const key = (overrides: Partial<KeyView>): KeyView => ({
  id: 'key_00000000000000000001',
  name: null,
  masked: 'ask_test_…abcd',
  access: 'read-write',
  createdAt: '2026-01-02T03:04:05.000Z',
  expiresAt: null,
  replacedBy: null,
  lastUsedAt: null,
  revokedAt: null,
  bannedUntil: null,
  ...overrides,
});

function render(keys: KeyView[]): string {
  const dashboard: Dashboard = { account, keys, nextKeys: null, history: [{ day: '2026-01-05', accepted: 70 }], plans: [{ name: 'free', perMinute: 60, perDay: 1000 }, { name: 'pro', perMinute: 300, perDay: 10000 }], email: { emailVerifiedAt: '2026-01-02T03:04:05.000Z', quotaEmails: true, verified: true, blocksKeys: false } };
  return dashboardPage(context, { dashboard, csrfToken: 'csrf-token' }).text;
}

describe('dashboard page', () => {
  it('when keys are listed, then last use shows as a time or "never", and a key without a masked form says so', () => {
    const page = render([
      key({ id: 'key_00000000000000000001', lastUsedAt: '2026-01-05T09:08:07.000Z' }),
      key({ id: 'key_00000000000000000002', lastUsedAt: null }),
      key({ id: 'key_00000000000000000003', masked: null }),
    ]);
    const row = (id: string) => new RegExp(`<tr data-key-id="${id}"[\\s\\S]*?</tr>`).exec(page)![0];
    expect(row('key_00000000000000000001')).toContain('2026-01-05 09:08 UTC');
    expect(row('key_00000000000000000002')).toContain('>never<');
    expect(row('key_00000000000000000003')).toContain('not shown');
  });

  it('when a key is revoked, then its row says so and offers no revocation', () => {
    const page = render([key({ revokedAt: '2026-01-04T00:00:00.000Z' })]);
    expect(page).toContain('Revoked 2026-01-04 00:00 UTC');
    expect(page).not.toContain('/revoke"');
  });

  it('when keys are in each state of their lifecycle, then each row says which, and offers only what can still be done', () => {
    const page = render([
      key({ id: 'key_00000000000000000001', name: 'Grafana', access: 'read-only', expiresAt: '2999-01-01T00:00:00.000Z' }),
      key({ id: 'key_00000000000000000002', expiresAt: '2999-01-02T00:00:00.000Z', replacedBy: 'key_00000000000000000003' }),
      key({ id: 'key_00000000000000000004', expiresAt: '2001-01-01T00:00:00.000Z', replacedBy: 'key_00000000000000000005' }),
      key({ id: 'key_00000000000000000006', expiresAt: '2001-01-01T00:00:00.000Z' }),
    ]);
    const row = (id: string) => new RegExp(`<tr data-key-id="${id}"[\\s\\S]*?</tr>`).exec(page)![0];
    const active = row('key_00000000000000000001');
    expect(active).toContain('Grafana');
    expect(active).toContain('data-access="read-only">Read-only<');
    expect(active).toContain('2999-01-01 00:00 UTC');
    expect(active).toContain('/portal/keys/key_00000000000000000001/roll"');
    expect(active).toContain('/portal/keys/key_00000000000000000001/revoke"');

    const inGrace = row('key_00000000000000000002');
    expect(inGrace).toContain('Replaced by <code>key_00000000000000000003</code>');
    expect(inGrace).toContain('works until 2999-01-02 00:00 UTC');
    expect(inGrace).not.toContain('/roll"');
    expect(inGrace).toContain('/revoke"');

    for (const id of ['key_00000000000000000004', 'key_00000000000000000006']) {
      expect(row(id)).toMatch(/class="expired"/);
      expect(row(id)).toContain('Expired');
      expect(row(id)).not.toMatch(/\/(roll|revoke)"/);
    }
    expect(row('key_00000000000000000004')).toContain('Replaced by <code>key_00000000000000000005</code>');
    expect(row('key_00000000000000000006')).toContain('data-access="read-write">Read and write<');
  });

  it('when the dashboard is rendered, then it shows the environment, plan, usage and a way to a higher plan', () => {
    const page = render([]);
    expect(page).toContain('data-environment="staging"');
    expect(page).toMatch(/data-field="used">7</);
    expect(page).toMatch(/data-field="remaining">930</);
    expect(page).toContain('Pro: 300 a minute, 10,000 a day');
    expect(page).toContain('No keys yet.');
  });

  it('when an instant is not ISO 8601, then it is shown as it is', () => {
    expect(formatInstant('2026-01-05T09:08:07.123Z')).toBe('2026-01-05 09:08 UTC');
    expect(formatInstant('')).toBe('');
  });
});
