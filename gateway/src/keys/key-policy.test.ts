import { ApiError } from '../../../shared/src/errors';
import type { Principal } from '../accounts/types';
import { accessRefusal, expiryRefusal } from './key-policy';

const principal = (overrides: Partial<Principal> = {}): Principal => ({
  keyId: 'key_00000000000000000001',
  accountId: 'acct_00000000000000000001',
  plan: 'free',
  quotas: { perMinute: 60, perDay: 1_000 },
  access: 'read-write',
  expiresAt: null,
  replacedBy: null,
  ...overrides,
});

const EXPIRY = Date.parse('2026-05-01T12:00:00.000Z');

describe('expiryRefusal', () => {
  it('when the key never expires, then nothing is refused, whenever', () => {
    expect(expiryRefusal(principal(), Number.MAX_SAFE_INTEGER)).toBeUndefined();
  });

  it('when the key expires later, then nothing is refused up to the last millisecond before its expiry', () => {
    expect(expiryRefusal(principal({ expiresAt: EXPIRY }), EXPIRY - 1)).toBeUndefined();
  });

  it('when the expiry has come, then 401 unauthorized saying when it expired, with an invalid_token challenge', () => {
    const refusal = expiryRefusal(principal({ expiresAt: EXPIRY }), EXPIRY);
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal?.toBody()).toEqual({ code: 'unauthorized', status: 401, message: 'This API key expired at 2026-05-01T12:00:00.000Z; use another key of the account, or create one.' });
    expect(refusal?.headers['WWW-Authenticate']).toMatch(/^Bearer realm="animal-store", error="invalid_token"/);
  });

  it('when a rolled key is past its grace period, then the message names the replacement by its id', () => {
    const refusal = expiryRefusal(principal({ expiresAt: EXPIRY, replacedBy: 'key_AAAAAAAAAAAAAAAAAAAB' }), EXPIRY + 60_000);
    expect(refusal?.message).toBe('This API key expired at 2026-05-01T12:00:00.000Z: it was rolled, and its replacement is key key_AAAAAAAAAAAAAAAAAAAB; use that key.');
  });

  it('when a rolled key is still in its grace period, then it works', () => {
    expect(expiryRefusal(principal({ expiresAt: EXPIRY, replacedBy: 'key_AAAAAAAAAAAAAAAAAAAB' }), EXPIRY - 1)).toBeUndefined();
  });
});

describe('accessRefusal', () => {
  it.each(['GET', 'HEAD'])('when a read-only key uses %s, then it is allowed', (method) => {
    expect(accessRefusal(principal({ access: 'read-only' }), method)).toBeUndefined();
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'get'])('when a read-only key uses %s, then 403 forbidden saying the key is read-only', (method) => {
    const refusal = accessRefusal(principal({ access: 'read-only' }), method);
    expect(refusal?.toBody()).toEqual({ code: 'forbidden', status: 403, message: expect.stringMatching(/^This API key is read-only: it may only GET and HEAD/) });
    expect(refusal?.message).toContain(method);
    expect(refusal?.headers['WWW-Authenticate']).toMatch(/error="insufficient_scope"/);
  });

  it.each(['GET', 'POST', 'DELETE'])('when a read-write key uses %s, then it is allowed', (method) => {
    expect(accessRefusal(principal(), method)).toBeUndefined();
  });
});
