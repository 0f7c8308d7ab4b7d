import { ApiError, type ErrorBody, type ErrorCode } from './errors';
import { createValidator, schemaOf } from './validation';
import type { NewPet, Pet, PetStatus } from './pets';

const validateNewPet = createValidator<NewPet>(schemaOf('NewPet'), 'invalid_body', 'body');

function messageOf(value: unknown): string {
  try {
    validateNewPet(value);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('invalid_body');
    return (error as ApiError).message;
  }
  throw new Error('expected a violation');
}

describe('NewPet schema taken from the interface description', () => {
  it('when status is omitted, then it defaults to available', () => {
    expect(validateNewPet({ name: 'Rex', categoryId: 1 })).toEqual({ name: 'Rex', categoryId: 1, status: 'available' });
  });

  it('when a field breaks a rule, then the message names the field', () => {
    expect(messageOf({ categoryId: 1 })).toBe('name is required.');
    expect(messageOf({ name: 'Rex', categoryId: '1' })).toBe('categoryId must be an integer.');
    expect(messageOf({ name: 'Rex', categoryId: 1.5 })).toBe('categoryId must be an integer.');
    expect(messageOf({ name: 'Rex', categoryId: 0 })).toBe('categoryId must be at least 1.');
    expect(messageOf({ name: 'Rex', categoryId: 2 ** 53 })).toBe('categoryId must be at most 9007199254740991.');
    expect(messageOf({ name: '   ', categoryId: 1 })).toBe('name must not be empty or only white space.');
    expect(messageOf({ name: '', categoryId: 1 })).toBe('name must have at least 1 character.');
    expect(messageOf({ name: 'Rex', categoryId: 1, id: 4 })).toBe('id is not an accepted field.');
    expect(messageOf({ name: 'Rex', categoryId: 1, status: null })).toMatch(/^status must/);
    expect(messageOf([])).toBe('body must be a JSON object.');
  });

  it('when the name holds a control character, then the message names the field and the characters refused', () => {
    for (const name of ['\u0000', 'Rex\u0000', 'a\tb', 'Rex\u007f', '\u001f']) {
      expect(messageOf({ name, categoryId: 1 })).toBe('name must not contain control characters (U+0000–U+001F, U+007F).');
    }
    expect(validateNewPet({ name: 'Rex \u0080\u00a0', categoryId: 1 }).name).toBe('Rex \u0080\u00a0');
  });

  it('when a pattern has no wording of its own, then the message quotes it', () => {
    const validateCode = createValidator<string>({ type: 'string', pattern: '^[A-Z]+$' }, 'invalid_parameter', 'code');
    expect(() => validateCode('abc')).toThrow('code must match the pattern ^[A-Z]+$.');
  });

  it('when the name has 100 characters outside the basic plane, then it is accepted (code points, not UTF-16 units)', () => {
    expect(validateNewPet({ name: '🐶'.repeat(100), categoryId: 1 }).name).toHaveLength(200);
    expect(messageOf({ name: '🐶'.repeat(101), categoryId: 1 })).toBe('name must have at most 100 characters.');
  });
});

describe('body types derived from the interface description', () => {
  // tsc checks these (test/typecheck.test.ts): a schema change that the types do not follow, or a
  // derivation that silently turns into `any` or `never`, fails the type check.
  type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
  const newPetIsDerived: Equals<NewPet, { name: string; categoryId: number; status?: PetStatus }> = true;
  const petIsDerived: Equals<Pet, { id: number; name: string; categoryId: number; status: PetStatus }> = true;
  const errorIsDerived: Equals<ErrorBody, { code: ErrorCode; message: string; status: number }> = true;
  // @ts-expect-error the derivation is not loose: a missing required field is a different type
  const notLoose: Equals<Pet, { id: number; name: string; categoryId: number }> = true;

  it('when the type assertions above compile, then the validator returns the derived NewPet, default filled in', () => {
    expect([newPetIsDerived, petIsDerived, errorIsDerived, notLoose]).toEqual([true, true, true, true]);
    const created: NewPet = validateNewPet({ name: 'Rex', categoryId: 1, status: 'sold' });
    expect(created).toEqual({ name: 'Rex', categoryId: 1, status: 'sold' });
  });
});
