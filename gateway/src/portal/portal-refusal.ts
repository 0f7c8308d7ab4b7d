import { ApiError } from '../../../shared/src/errors';

/**
 * The portal refuses with the one catalogue's errors (`ApiError`), like every other part of the
 * system, and renders them as pages (`refusals.ts`). These are the words its refusals share.
 */

/** The value of a check that passed; a failed check's message, as a 400 refusal of the form. */
export function valid<T>(checked: { ok: true; value: T } | { ok: false; message: string }): T {
  if (!checked.ok) throw new ApiError('invalid_body', checked.message);
  return checked.value;
}

/** 429 rate_limited with `Retry-After`, saying in words when to try again. */
export function tooManyAttempts(what: string, waitSeconds: number): ApiError {
  return new ApiError('rate_limited', `${what}: try again in ${describeWait(waitSeconds)}.`, { 'Retry-After': String(waitSeconds) });
}

function describeWait(seconds: number): string {
  if (seconds < 60) return `${seconds} ${seconds === 1 ? 'second' : 'seconds'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
}
