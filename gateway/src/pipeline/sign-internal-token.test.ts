import jwt from 'jsonwebtoken';
import { signInternalToken, verifyInternalToken } from '../../../shared/src/internal-token';
import { internalAuthorization } from './sign-internal-token';

const SECRET = 's'.repeat(32);

describe('the internal token of a request', () => {
  it('when an account sends several requests within one second, then each carries the token that second mints, signed once', () => {
    const mint = () => signInternalToken(SECRET, { issuer: 'gateway', subject: 'acct_1', lifetimeSeconds: 60 });
    // Bit for bit what minting it afresh gives: the claims are the account and the second. Both are
    // signed on the real clock: tried again until no second boundary falls between them (a CI run
    // crossed one), a fresh cache each time.
    let nowMs = Date.now();
    let authorize: (accountId: string) => string;
    let first: string;
    let minted: string;
    do {
      minted = mint();
      authorize = internalAuthorization(SECRET, () => nowMs);
      first = authorize('acct_1');
    } while (mint() !== minted);
    expect(first).toBe(`Bearer ${minted}`);
    const token = first.replace(/^Bearer /, '');
    expect(authorize('acct_1')).toBe(first);
    expect(verifyInternalToken(token, SECRET)).toMatchObject({ iss: 'gateway', sub: 'acct_1' });
    expect(authorize('acct_2')).not.toBe(first);
    nowMs += 1_000;
    expect((jwt.decode(authorize('acct_1').replace(/^Bearer /, '')) as { sub: string }).sub).toBe('acct_1');
  });

  it('when the second changes, then a new token is minted', () => {
    let nowMs = 1_000_000;
    const authorize = internalAuthorization(SECRET, () => nowMs);
    const before = authorize('acct_1');
    nowMs += 1_000;
    // Signed with the real clock's iat, so only the cache key moved: a new signature was asked for.
    const after = authorize('acct_1');
    expect(after).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(before).toMatch(/^Bearer /);
  });
});
