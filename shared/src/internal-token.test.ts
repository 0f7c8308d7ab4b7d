import jwt from 'jsonwebtoken';
import { createInternalTokenVerifier, InvalidInternalToken, signInternalToken, signServiceToken, verifyInternalToken } from './internal-token';

const SECRET = 'a-secret-long-enough-for-hs256-0123456789';
const now = () => Math.floor(Date.now() / 1000);

describe('internal tokens', () => {
  it('when the gateway signs a token, then it verifies with its issuer, subject and a bounded expiry', () => {
    const claims = verifyInternalToken(signInternalToken(SECRET, { issuer: 'gateway', subject: 'acct_1' }), SECRET);
    expect(claims).toMatchObject({ iss: 'gateway', sub: 'acct_1', aud: 'pets-service' });
    expect(claims.exp - claims.iat).toBe(60);
  });

  it('when another service signs with the helper, then its issuer is service:NAME', () => {
    expect(verifyInternalToken(signServiceToken('reports', SECRET), SECRET).iss).toBe('service:reports');
    expect(() => signServiceToken('Bad Name', SECRET)).toThrow();
    expect(() => signInternalToken(SECRET, { issuer: 'gateway', subject: 'x', lifetimeSeconds: 301 })).toThrow();
  });

  it.each([
    ['another secret', () => jwt.sign({ sub: 'x' }, 'other-secret-0123456789012345678901', { algorithm: 'HS256', audience: 'pets-service', issuer: 'gateway', expiresIn: 60 })],
    ['another audience', () => jwt.sign({ sub: 'x' }, SECRET, { algorithm: 'HS256', audience: 'billing', issuer: 'gateway', expiresIn: 60 })],
    ['an unknown issuer', () => jwt.sign({ sub: 'x' }, SECRET, { algorithm: 'HS256', audience: 'pets-service', issuer: 'someone', expiresIn: 60 })],
    ['no expiry', () => jwt.sign({ sub: 'x' }, SECRET, { algorithm: 'HS256', audience: 'pets-service', issuer: 'gateway' })],
    ['an expiry beyond 5 minutes', () => jwt.sign({ sub: 'x' }, SECRET, { algorithm: 'HS256', audience: 'pets-service', issuer: 'gateway', expiresIn: 301 })],
    ['an expired token', () => jwt.sign({ sub: 'x', iat: now() - 120, exp: now() - 60 }, SECRET, { algorithm: 'HS256', audience: 'pets-service', issuer: 'gateway' })],
    ['HS512', () => jwt.sign({ sub: 'x' }, SECRET, { algorithm: 'HS512', audience: 'pets-service', issuer: 'gateway', expiresIn: 60 })],
    ['alg none', () => `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'x', aud: 'pets-service', iss: 'gateway', iat: now(), exp: now() + 60 })).toString('base64url')}.`],
    ['an issue time 10 years ahead', () => jwt.sign({ sub: 'x', iat: now() + 315_360_000, exp: now() + 315_360_300 }, SECRET, { algorithm: 'HS256', audience: 'pets-service', issuer: 'gateway' })],
    ['no subject', () => jwt.sign({}, SECRET, { algorithm: 'HS256', audience: 'pets-service', issuer: 'gateway', expiresIn: 60 })],
  ])('when a token has %s, then it is refused', (_case, make) => {
    expect(() => verifyInternalToken(make(), SECRET)).toThrow(InvalidInternalToken);
  });
});

describe('createInternalTokenVerifier', () => {
  const SECRET_ = 'v'.repeat(32);

  it('when a token verified once comes again, then it is accepted until it expires, and then refused', () => {
    jest.useFakeTimers({ now: Date.now() });
    try {
      const verify = createInternalTokenVerifier(SECRET_);
      const token = signInternalToken(SECRET_, { issuer: 'gateway', subject: 'acct_1', lifetimeSeconds: 60 });
      const claims = verify(token);
      expect(verify(token)).toBe(claims);
      jest.setSystemTime((claims.exp + 6) * 1000);
      expect(() => verify(token)).toThrow(InvalidInternalToken);
    } finally {
      jest.useRealTimers();
    }
  });

  it('when a token is refused, then it is refused every time (nothing is remembered for it)', () => {
    const verify = createInternalTokenVerifier(SECRET_);
    const forged = signInternalToken('w'.repeat(32), { issuer: 'gateway', subject: 'acct_1' });
    expect(() => verify(forged)).toThrow(InvalidInternalToken);
    expect(() => verify(forged)).toThrow(InvalidInternalToken);
  });

  it('when more tokens are accepted than it may remember, then the oldest are forgotten and still verify', () => {
    const verify = createInternalTokenVerifier(SECRET_, { maxEntries: 2 });
    const tokens = ['a', 'b', 'c'].map((subject) => signInternalToken(SECRET_, { issuer: 'gateway', subject }));
    for (const token of tokens) verify(token);
    expect(verify(tokens[0]!).sub).toBe('a');
  });
});
