import { domainToASCII } from 'node:url';
import { dictionary } from '@zxcvbn-ts/language-common';
import { secretWeakness } from '../../../shared/src/secret-strength';

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
// Unicode format characters (category Cf): zero-width spaces and joiners, bidi controls, the soft
// hyphen… Invisible in every listing, so `ann\u200b@example.com` would print as `ann@example.com`.
const FORMAT_CHARACTER = /\p{Cf}/u;
const ONLY_BLANK = /^[\s\p{Z}\p{Cc}\p{Cf}]*$/u;
/**
 * The alphabets whose letters pass for one another (UTS #39's confusables are mostly between
 * these): a Cyrillic `і` or a Greek `ο` inside Latin letters prints as the Latin address. Each
 * letter of another script (CJK, Arabic…) cannot pass for a Latin one, so those may mix.
 */
const LOOK_ALIKE_SCRIPTS = ['Latin', 'Cyrillic', 'Greek', 'Armenian', 'Cherokee', 'Coptic', 'Lisu', 'Canadian_Aboriginal'].map((script) => ({
  script,
  letter: new RegExp(`\\p{Script=${script}}`, 'u'),
}));
/**
 * Lower-case letters of other alphabets that print as one Latin letter each, and that letter: a word
 * made only of them (Cyrillic `аӏісе`) prints as a Latin word (`alice`).
 */
const LATIN_LOOK_ALIKES: Record<string, Readonly<Record<string, string>>> = {
  Cyrillic: { а: 'a', с: 'c', ԁ: 'd', е: 'e', һ: 'h', і: 'i', ј: 'j', ӏ: 'l', о: 'o', р: 'p', ԛ: 'q', ѕ: 's', ԝ: 'w', х: 'x', у: 'y' },
  Greek: { α: 'a', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', υ: 'u', χ: 'x' },
};

/**
 * The one form an email is kept and looked up in, so that addresses that print alike are one
 * address: NFKC (the full-width `ｖictim@…` is `victim@…`), trimmed, lower-cased (the local part
 * too, as it always was: `Ann@…` and `ann@…` are one log-in), the domain in its IDNA ASCII form
 * (`bücher.example` is `xn--bcher-kva.example`, whatever way its letters were composed), without a
 * trailing dot. Refused: format characters (zero-width, bidi, soft hyphen: category Cf) and a
 * domain IDNA does not accept. Log-in looks addresses up in this form.
 */
export function canonicalEmail(raw: string): Checked<string> {
  const trimmed = raw.normalize('NFKC').trim();
  if (trimmed === '') return { ok: false, message: 'Enter your email address.' };
  if (FORMAT_CHARACTER.test(trimmed)) {
    return { ok: false, message: 'The email address contains an invisible formatting character (zero-width, direction mark, soft hyphen…): type it again without it.' };
  }
  const at = trimmed.lastIndexOf('@');
  const domain = at < 0 ? '' : trimmed.slice(at + 1).replace(/\.$/, '');
  const asciiDomain = domain === '' ? '' : domainToASCII(domain);
  if (at > 0 && domain !== '' && asciiDomain === '') return { ok: false, message: 'The part of the email address after @ is not a valid domain name.' };
  const email = `${trimmed.slice(0, Math.max(0, at)).toLowerCase()}@${asciiDomain}`;
  if ([...email].length > MAX_EMAIL_LENGTH) return { ok: false, message: `The email address is longer than ${MAX_EMAIL_LENGTH} characters.` };
  if (at <= 0 || !EMAIL_SHAPE.test(email)) return { ok: false, message: 'Enter an email address like name@example.com.' };
  return { ok: true, value: email };
}

/**
 * An email a new account may have: its canonical form, and a local part whose letters come from one
 * of the alphabets that pass for one another, so `vіctim@…` with a Cyrillic `і` is not a second
 * account printing as `victim@…` (the domain needs no such rule: a non-ASCII domain is kept, and
 * listed, as `xn--…`). A word in another alphabet (`иван@…`, `сахар@…`) is fine; one that prints
 * as an existing address is the sign-up's concern (`latinLookAlike`).
 */
export function checkEmail(raw: string): Checked<string> {
  const canonical = canonicalEmail(raw);
  if (!canonical.ok) return canonical;
  const localPart = canonical.value.slice(0, canonical.value.lastIndexOf('@'));
  const scripts = LOOK_ALIKE_SCRIPTS.filter(({ letter }) => letter.test(localPart)).map(({ script }) => script);
  if (scripts.length > 1) {
    return { ok: false, message: `The part of the email address before @ mixes letters of different alphabets (${scripts.join(' and ')}) that look alike: type it in one alphabet.` };
  }
  return canonical;
}

/**
 * The Latin address a canonical `email` prints as, when its local part is a word made only of
 * Cyrillic or Greek letters that each print as a Latin one (`аӏісе@example.com` → `alice@example.com`);
 * undefined otherwise. Sign-up refuses such an address when the Latin one has an account: the word
 * itself may be a real one (`сахар`), so only an existing look-alike is a reason to refuse.
 */
export function latinLookAlike(email: string): string | undefined {
  const at = email.lastIndexOf('@');
  const letters = [...email.slice(0, at)].filter((char) => /\p{L}/u.test(char));
  const map = Object.values(LATIN_LOOK_ALIKES).find((candidate) => letters.length > 0 && letters.every((letter) => letter in candidate));
  if (!map) return undefined;
  return `${[...email.slice(0, at)].map((char) => map[char] ?? char).join('')}${email.slice(at)}`;
}

/** How sign-up stored emails before `checkEmail` normalised them (NFC, trimmed, lower-cased): accounts made then keep logging in. */
export function legacyEmail(raw: string): string | undefined {
  const email = raw.normalize('NFC').trim().toLowerCase();
  return EMAIL_SHAPE.test(email) && [...email].length <= MAX_EMAIL_LENGTH ? email : undefined;
}

/**
 * The forms a log-in looks an email up under, the canonical one first (the one its attempts are
 * counted under): then the form an account made before the canonical form existed has, when it
 * differs. Refused only when neither is an email.
 */
export function logInEmails(raw: string): Checked<string[]> {
  const canonical = canonicalEmail(raw);
  const legacy = legacyEmail(raw);
  if (!canonical.ok) return legacy === undefined ? canonical : { ok: true, value: [legacy] };
  return { ok: true, value: legacy === undefined || legacy === canonical.value ? [canonical.value] : [canonical.value, legacy] };
}

/**
 * The most common passwords (about 49,000, from the zxcvbn-ts project's maintained list), loaded
 * on first use: a password among them is guessed in the first seconds of any attack.
 */
let commonPasswords: ReadonlySet<string> | undefined;
function isCommon(password: string): boolean {
  commonPasswords ??= new Set(dictionary['passwords-common'] as string[]);
  const lower = password.normalize('NFKC').toLowerCase();
  // Digits at the end are usually just digits (`password123`), so they are kept as they are.
  const [, head = '', tail = ''] = /^(.*?)(\d*)$/s.exec(lower) ?? [];
  return commonPasswords.has(lower) || commonPasswords.has(withoutLeet(lower)) || commonPasswords.has(`${withoutLeet(head)}${tail}`);
}

/** `p@ssw0rd` is `password` to anyone guessing: the usual digit and symbol swaps undone. */
function withoutLeet(password: string): string {
  const letters: Record<string, string> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', $: 's', '!': 'i' };
  return password.replace(/[013457@$!]/g, (c) => letters[c]!);
}

/** The rules for a new password (log-in checks none of them: a wrong password is just wrong). */
export function checkNewPassword(password: string, email: string): Checked<string> {
  const length = [...password.normalize('NFKC')].length;
  if (length < MIN_PASSWORD_LENGTH) return { ok: false, message: `The password must have at least ${MIN_PASSWORD_LENGTH} characters.` };
  if (length > MAX_PASSWORD_LENGTH) return { ok: false, message: `The password must have at most ${MAX_PASSWORD_LENGTH} characters.` };
  if (ONLY_BLANK.test(password)) return { ok: false, message: 'The password must not be only spaces or invisible characters.' };
  const weakness = secretWeakness(password);
  if (weakness) return { ok: false, message: `This password is too easy to guess (${weakness}); choose another.` };
  if (isCommon(password)) return { ok: false, message: 'This password is one of the most common ones; choose another.' };
  const asEmail = canonicalEmail(password);
  if ((asEmail.ok && asEmail.value === email) || legacyEmail(password) === email) return { ok: false, message: 'The password must not be your email address.' };
  return { ok: true, value: password };
}
