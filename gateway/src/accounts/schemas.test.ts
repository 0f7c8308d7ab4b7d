import { ApiError } from '../../../shared/src/errors';
import type { KeyAccess, PlanName } from './types';
import {
  validateAccountPatch,
  validateKeyRoll,
  validateNewAccount,
  validateNewKey,
  validatePlanNumbers,
  type AccountPatch,
  type KeyRollInput,
  type NewAccountInput,
  type NewKeyInput,
  type PlanNumbers,
} from './schemas';

// tsc checks these (test/typecheck.test.ts): the body types are derived from the schemas, and a
// schema change they do not follow, or a derivation gone `any` or `never`, fails the type check.
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Flat<T> = { [K in keyof T]: T[K] };
const planNumbersIsDerived: Equals<Flat<PlanNumbers>, { perMinute: number; perDay: number }> = true;
const patchIsDerived: Equals<Flat<AccountPatch>, { plan?: PlanName; perMinute?: number | null; perDay?: number | null }> = true;
const newAccountIsDerived: Equals<Flat<NewAccountInput>, { name: string; plan: PlanName; perMinute?: number | null; perDay?: number | null; email?: string | null }> = true;
const newKeyIsDerived: Equals<Flat<NewKeyInput>, { name?: string; access?: KeyAccess; expiresAt?: string }> = true;
const keyRollIsDerived: Equals<Flat<KeyRollInput>, { gracePeriodSeconds?: number }> = true;

const refusedWith = (message: string | RegExp) => expect.objectContaining({ name: ApiError.name, code: 'invalid_body', message: typeof message === 'string' ? message : expect.stringMatching(message) });

describe('admin body schemas', () => {
  it('when the type assertions above compile, then bodies of those types pass, null overrides kept', () => {
    expect([planNumbersIsDerived, patchIsDerived, newAccountIsDerived, newKeyIsDerived, keyRollIsDerived]).toEqual([true, true, true, true, true]);
    expect(validateNewKey({})).toEqual({});
    expect(validateNewKey({ name: 'CI', access: 'read-only', expiresAt: '2030-01-01T00:00:00Z' })).toEqual({ name: 'CI', access: 'read-only', expiresAt: '2030-01-01T00:00:00Z' });
    expect(validateKeyRoll({ gracePeriodSeconds: 0 })).toEqual({ gracePeriodSeconds: 0 });
    expect(validatePlanNumbers({ perMinute: 5, perDay: 6 })).toEqual({ perMinute: 5, perDay: 6 });
    expect(validateAccountPatch({ plan: 'pro', perMinute: null })).toEqual({ plan: 'pro', perMinute: null });
    expect(validateNewAccount({ name: 'Acme', plan: 'free', perDay: null, perMinute: 9 })).toEqual({ name: 'Acme', plan: 'free', perDay: null, perMinute: 9 });
  });

  it('when a body breaks a rule, then it is refused with a message that names the field', () => {
    expect(() => validatePlanNumbers({ perMinute: 5 })).toThrow(refusedWith('perDay is required.'));
    expect(() => validateAccountPatch({ plan: 'gold' })).toThrow(refusedWith(/^plan must be one of/));
    expect(() => validateNewAccount({ name: 'Acme', plan: 'free', email: 'a@b.c' })).toThrow(refusedWith('email is not an accepted field.'));
    expect(() => validateNewAccount({ name: 'Acme', plan: 'free', perMinute: 0 })).toThrow(refusedWith('perMinute must be at least 1.'));
    expect(() => validateNewKey({ access: 'admin' })).toThrow(refusedWith('access must be one of "read-write", "read-only".'));
    expect(() => validateNewKey({ expiresAt: '' })).toThrow(refusedWith('expiresAt must have at least 1 character.'));
    expect(() => validateNewKey({ scopes: [] })).toThrow(refusedWith('scopes is not an accepted field.'));
    expect(() => validateKeyRoll({ gracePeriodSeconds: 604_801 })).toThrow(refusedWith('gracePeriodSeconds must be at most 604800.'));
  });
});
