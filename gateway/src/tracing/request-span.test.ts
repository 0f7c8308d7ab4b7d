import type { Principal } from '../accounts/types';
import { tracedDecisionOf, tracingOn } from './request-span';

const principal = { accountId: 'acct_1', keyId: 'key_1', plan: 'free' } as Principal;

describe('tracedDecisionOf', () => {
  it('when a key is decided on, then the span says accepted, limited or banned', () => {
    expect(tracedDecisionOf(principal, 'allowed')).toBe('accepted');
    expect(tracedDecisionOf(principal, 'limited')).toBe('limited');
    expect(tracedDecisionOf(principal, 'banned')).toBe('banned');
  });

  it('when a request without a valid key is let through on its address budget, then anonymous; over that budget, limited', () => {
    expect(tracedDecisionOf(undefined, 'allowed')).toBe('anonymous');
    expect(tracedDecisionOf(undefined, 'limited')).toBe('limited');
  });
});

describe('tracingOn', () => {
  it('when no SDK was started (no OTLP endpoint), then it is off', () => {
    expect(tracingOn()).toBe(false);
  });
});
