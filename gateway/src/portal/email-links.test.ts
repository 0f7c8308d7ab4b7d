import { EmailLinks, UnsubscribeSignatures } from './email-links';
import { MemoryPortalEmailStore } from './email-store';

const ACCOUNT_ID = 'acct_AAAAAAAAAAAAAAAAAAAA';
const HOUR_MS = 3_600_000;

/** Links issued at 0 on an injected clock, redeemed `ageMs` later. */
async function redeemedAfter(purpose: 'verify' | 'reset', ageMs: number) {
  let now = 0;
  const links = new EmailLinks(new MemoryPortalEmailStore(() => now));
  const token = await links.issue(purpose, ACCOUNT_ID, 'owner@example.com');
  now = ageMs;
  return links.redeem(purpose, token);
}

describe('EmailLinks', () => {
  it('when a reset link is used, then it works within 1 hour and not after', async () => {
    expect(await redeemedAfter('reset', HOUR_MS - 1)).toEqual({ accountId: ACCOUNT_ID, email: 'owner@example.com' });
    expect(await redeemedAfter('reset', HOUR_MS)).toBeNull();
  });

  it('when a verification link is used, then it works within 24 hours and not after', async () => {
    expect(await redeemedAfter('verify', 24 * HOUR_MS - 1)).not.toBeNull();
    expect(await redeemedAfter('verify', 24 * HOUR_MS)).toBeNull();
  });

  it("when a token is malformed, of the other purpose, or names another account, then it is no link (and the live one still works)", async () => {
    const links = new EmailLinks(new MemoryPortalEmailStore());
    const token = await links.issue('reset', ACCOUNT_ID, 'owner@example.com');
    const secret = token.split('.')[1]!;
    for (const forged of ['', 'x'.repeat(10_000), `${ACCOUNT_ID}.${'A'.repeat(43)}`, `acct_BBBBBBBBBBBBBBBBBBBB.${secret}`, `${token}x`, ` ${token}`]) {
      expect(await links.redeem('reset', forged)).toBeNull();
    }
    expect(await links.redeem('verify', token)).toBeNull();
    expect(await links.redeem('reset', token)).not.toBeNull();
    expect(await links.redeem('reset', token)).toBeNull();
  });
});

describe('UnsubscribeSignatures', () => {
  it("when a link is checked, then only the signature of that account under that secret passes", () => {
    const signatures = new UnsubscribeSignatures('test-internal-secret-0123456789abcdef');
    const signature = signatures.sign(ACCOUNT_ID);
    expect(signatures.verify(ACCOUNT_ID, signature)).toBe(true);
    expect(signatures.verify('acct_BBBBBBBBBBBBBBBBBBBB', signature)).toBe(false);
    expect(new UnsubscribeSignatures('another-internal-secret-0123456789ab').verify(ACCOUNT_ID, signature)).toBe(false);
    expect(signatures.verify(ACCOUNT_ID, '')).toBe(false);
    expect(signatures.verify(ACCOUNT_ID, signature.slice(0, -1))).toBe(false);
  });
});
