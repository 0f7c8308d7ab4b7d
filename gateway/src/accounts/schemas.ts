import type { FromSchema } from 'json-schema-to-ts';
import { createValidator, type Validator } from '../../../shared/src/validation';
import { KEY_ACCESS_LEVELS, PLAN_NAMES } from './types';
import { MAX_GRACE_PERIOD_SECONDS, MAX_NAME_LENGTH, MAX_QUOTA } from './input-limits';

export { DEFAULT_GRACE_PERIOD_SECONDS, MAX_GRACE_PERIOD_SECONDS, MAX_NAME_LENGTH, MAX_QUOTA } from './input-limits';

/**
 * Admin request bodies: unknown fields are refused, and every message names the field at fault.
 * Their types are derived from these schemas (json-schema-to-ts, compile time only): a field is
 * stated once. These are the only statement of the admin input rules: the account service checks
 * its input with the same validators, whichever way it came in.
 */

const quota = { type: 'integer', minimum: 1, maximum: MAX_QUOTA } as const;
const planName = { type: 'string', enum: [...PLAN_NAMES] } as const;
/** An account's or a key's name. */
const name = { type: 'string', minLength: 1, maxLength: MAX_NAME_LENGTH, pattern: '\\S' } as const;

const newAccountSchema = {
  type: 'object',
  required: ['name', 'plan'],
  additionalProperties: false,
  properties: {
    name,
    plan: planName,
    perMinute: quota,
    perDay: quota,
  },
} as const;

const accountPatchSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { plan: planName, perMinute: quota, perDay: quota },
} as const;

const planNumbersSchema = {
  type: 'object',
  required: ['perMinute', 'perDay'],
  additionalProperties: false,
  properties: { perMinute: quota, perDay: quota },
} as const;

/** POST /admin/accounts/{id}/keys: every field optional (no body at all is `{}`). `expiresAt` is read as RFC 3339 by the account service, which knows the time. */
const newKeySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name,
    access: { type: 'string', enum: [...KEY_ACCESS_LEVELS] },
    expiresAt: { type: 'string', minLength: 1, maxLength: 64 },
  },
} as const;

/** POST /admin/keys/{keyId}/roll. */
const keyRollSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { gracePeriodSeconds: { type: 'integer', minimum: 0, maximum: MAX_GRACE_PERIOD_SECONDS } },
} as const;

type QuotaField = 'perMinute' | 'perDay';
/** The quota overrides the schema allows may also be `null`: "no override" (see `allowingNullOverrides`). */
type WithNullableOverrides<T> = Omit<T, QuotaField> & { [F in QuotaField & keyof T]?: number | null };

/** A new key's name, access and expiry, each optional. */
export type NewKeyInput = FromSchema<typeof newKeySchema>;
/** A roll's grace period. */
export type KeyRollInput = FromSchema<typeof keyRollSchema>;
/** Both numbers of a plan (PUT /admin/plans/{name}). */
export type PlanNumbers = FromSchema<typeof planNumbersSchema>;
/** Absent: unchanged; null: the override is cleared (the plan's number applies again). */
export type AccountPatch = WithNullableOverrides<FromSchema<typeof accountPatchSchema>>;
export type NewAccountInput = WithNullableOverrides<FromSchema<typeof newAccountSchema>> & {
  /** The portal's log-in (not part of the ops API's body); ops-created accounts have none. */
  email?: string | null;
};

const checkNewAccount = createValidator<NewAccountInput>(newAccountSchema, 'invalid_body', 'body');
const checkPatch = createValidator<AccountPatch>(accountPatchSchema, 'invalid_body', 'body');

/**
 * `null` for an override means "no override". It is taken out before validation and put back
 * after, because a schema type of ["integer", "null"] would make every message about the
 * number read "must be a integer,null".
 */
function allowingNullOverrides<T extends { perMinute?: number | null; perDay?: number | null }>(check: Validator<T>): Validator<T> {
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return check(value);
    const rest: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    const cleared: Partial<Record<'perMinute' | 'perDay', null>> = {};
    for (const field of ['perMinute', 'perDay'] as const) {
      if (rest[field] === null) {
        cleared[field] = null;
        delete rest[field];
      }
    }
    return { ...check(rest), ...cleared };
  };
}

export const validateNewAccount: Validator<NewAccountInput> = allowingNullOverrides(checkNewAccount);
export const validateAccountPatch: Validator<AccountPatch> = allowingNullOverrides(checkPatch);
export const validatePlanNumbers: Validator<PlanNumbers> = createValidator<PlanNumbers>(planNumbersSchema, 'invalid_body', 'body');
export const validateNewKey: Validator<NewKeyInput> = createValidator<NewKeyInput>(newKeySchema, 'invalid_body', 'body');
export const validateKeyRoll: Validator<KeyRollInput> = createValidator<KeyRollInput>(keyRollSchema, 'invalid_body', 'body');
