import { domainToASCII } from 'node:url';
import { PASSPHRASE_HINT, passwordWeakness } from '../../../shared/src/secret-strength';

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
/**
 * Characters that print as nothing, so `ann\u200b@example.com` would print as `ann@example.com` in
 * every listing: Unicode's default-ignorable code points (zero-width spaces and joiners, variation
 * selectors such as U+FE0F, the combining grapheme joiner U+034F, the Hangul fillers U+115F, U+1160,
 * U+3164 and U+FFA0, tag characters…; the fillers, letters that print as nothing, are named too so
 * the rule reads whole), and every format character (category Cf: bidi controls, the soft hyphen…).
 */
const INVISIBLE_CHARACTER = /[\p{Default_Ignorable_Code_Point}\p{Cf}\u115F\u1160\u3164\uFFA0]/u;
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
 * trailing dot (`example.org..` is `example.org`). Refused: invisible characters (`INVISIBLE_CHARACTER`,
 * before or after NFKC) and a domain IDNA does not accept. Log-in looks addresses up in this form.
 */
export function canonicalEmail(raw: string): Checked<string> {
  const trimmed = raw.normalize('NFKC').trim();
  if (trimmed === '') return { ok: false, message: 'Enter your email address.' };
  if (INVISIBLE_CHARACTER.test(raw) || INVISIBLE_CHARACTER.test(trimmed)) {
    return {
      ok: false,
      message: 'The email address contains an invisible character (zero-width space or joiner, variation selector, Hangul filler, direction mark, soft hyphen…): type it again without it.',
    };
  }
  const at = trimmed.lastIndexOf('@');
  const domain = at < 0 ? '' : trimmed.slice(at + 1).replace(/\.+$/, '');
  // Again after IDNA, which reads the ideographic full stop `。` as a dot.
  const asciiDomain = domain === '' ? '' : domainToASCII(domain).replace(/\.+$/, '');
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

/** The rules for a new password (log-in checks none of them: a wrong password is just wrong). */
export function checkNewPassword(password: string, email: string): Checked<string> {
  const length = [...password.normalize('NFKC')].length;
  if (length < MIN_PASSWORD_LENGTH) return { ok: false, message: `The password must have at least ${MIN_PASSWORD_LENGTH} characters.` };
  if (length > MAX_PASSWORD_LENGTH) return { ok: false, message: `The password must have at most ${MAX_PASSWORD_LENGTH} characters.` };
  if (ONLY_BLANK.test(password)) return { ok: false, message: 'The password must not be only spaces or invisible characters.' };
  const asEmail = canonicalEmail(password);
  if ((asEmail.ok && asEmail.value === email) || legacyEmail(password) === email) return { ok: false, message: 'The password must not be your email address.' };
  // Last: the estimate is the one costly check (milliseconds), so what is cheaper to refuse is refused first.
  const weakness = passwordWeakness(password, email);
  if (weakness) return { ok: false, message: `The password is too easy to guess (${weakness}): ${PASSPHRASE_HINT}.` };
  return { ok: true, value: password };
}
