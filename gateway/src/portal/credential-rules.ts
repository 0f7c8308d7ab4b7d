/**
 * What the portal accepts as an email and a password. Each check returns the message a person
 * sees next to the field, or the normalised value.
 */
export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

/** RFC 5321 caps a path at 256 octets, so an address at 254 characters. */
export const MAX_EMAIL_LENGTH = 254;
export const MIN_PASSWORD_LENGTH = 10;
/** Long enough for any passphrase or generated password; short enough that nobody hashes megabytes. */
export const MAX_PASSWORD_LENGTH = 128;

// One @, something on each side, a dot in the domain, no white space or control characters.
const EMAIL_SHAPE = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u;

/** Passwords refused whatever their length: the most common ones that would pass it. */
const COMMON_PASSWORDS = new Set(['1234567890', '0123456789', '12345678910', 'password12', 'password123', 'password1234', 'qwertyuiop', '1q2w3e4r5t', 'iloveyou12', 'abcdefghij', '1111111111', '0000000000', 'qwerty1234', 'passw0rd123']);

/** Trimmed and lower-cased, so `Ann@Example.com ` and `ann@example.com` are one log-in. */
export function normaliseEmail(raw: string): string {
  return raw.normalize('NFC').trim().toLowerCase();
}

export function checkEmail(raw: string): Checked<string> {
  const email = normaliseEmail(raw);
  if (email === '') return { ok: false, message: 'Enter your email address.' };
  if ([...email].length > MAX_EMAIL_LENGTH) return { ok: false, message: `The email address is longer than ${MAX_EMAIL_LENGTH} characters.` };
  if (!EMAIL_SHAPE.test(email)) return { ok: false, message: 'Enter an email address like name@example.com.' };
  return { ok: true, value: email };
}

/** The rules for a new password (log-in checks none of them: a wrong password is just wrong). */
export function checkNewPassword(password: string, email: string): Checked<string> {
  const length = [...password.normalize('NFKC')].length;
  if (length < MIN_PASSWORD_LENGTH) return { ok: false, message: `The password must have at least ${MIN_PASSWORD_LENGTH} characters.` };
  if (length > MAX_PASSWORD_LENGTH) return { ok: false, message: `The password must have at most ${MAX_PASSWORD_LENGTH} characters.` };
  if (COMMON_PASSWORDS.has(password.toLowerCase())) return { ok: false, message: 'This password is one of the most common ones; choose another.' };
  if (normaliseEmail(password) === email) return { ok: false, message: 'The password must not be your email address.' };
  return { ok: true, value: password };
}
