import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import * as english from '@zxcvbn-ts/language-en';

/**
 * How guessable a secret or a password is: the one strength check of the system, on zxcvbn-ts (a
 * maintained estimator that knows the common passwords, English words, names, keyboard walks,
 * runs, repeats, dates and the usual `p@ssw0rd` swaps). Exact-pattern rules let a run plus one
 * character pass (`0123456789abcdef`, `Password12345678`); an estimator counts how many guesses
 * a cracker ordering its guesses that way needs, and each use sets the number it must reach.
 */

/** How to make a good production secret, in every refusal of one. */
export const GENERATE_SECRET_HINT = 'generate one with: openssl rand -base64 32';
/** How to make a good password, in every refusal of one. */
export const PASSPHRASE_HINT = 'choose a longer passphrase, such as four or more words that do not go together';

/**
 * A production secret (`ADMIN_TOKEN`, each `ADMIN_TOKENS` token, `INTERNAL_JWT_SECRET`) needs an
 * estimated 10^20 guesses (about 66 bits). One internal token lets anyone test secrets offline at
 * ~10^10 HMACs a second per GPU: 10^20 is years of a hundred of them. Generated secrets are far
 * above it (`openssl rand -base64 32`: never under 10^40 in 500 draws, `-hex 32`: 10^60, even 16
 * random bytes in base64: 10^22), while a 16-character value can never reach it (the estimator
 * gives at most 10 guesses a character to what it does not recognise): a secret a person typed
 * must be long as well as unpredictable.
 */
export const SECRET_MIN_GUESSES_LOG10 = 20;
/**
 * A portal password needs an estimated 10^9 guesses: online, each try is rate-limited per address
 * and slowed per email; offline (a stolen store), each is an scrypt. zxcvbn's own advice is 10^8
 * ("score 3"); 10^9 keeps `Winter2026!!`-style season-and-year passwords out too, while a real
 * passphrase (`blue tables sing loudly`: 10^18) or 10 random characters (10^10) pass.
 */
export const PASSWORD_MIN_GUESSES_LOG10 = 9;

/**
 * Only the first 64 characters are estimated: the estimator's time grows steeply with length
 * (a 128-character password took seconds), and 64 random characters are far past every threshold.
 * A long value is judged by its start: a weak start is refused even if what follows is strong.
 */
const ESTIMATED_LENGTH = 64;
/** The estimator tries every combination of swaps it knows; capped, a crafted `@$!0…` string costs milliseconds. */
const MAX_SWAPS_TRIED = 10;

/** Words a value guarding this system must not be built on (the estimator counts them as already known). */
export const SYSTEM_WORDS: readonly string[] = ['animal', 'store', 'animalstore', 'admin', 'token', 'secret', 'internal', 'jwt', 'gateway', 'pets', 'portal', 'production'];

let estimator: ZxcvbnFactory | undefined;

/**
 * The estimator, built on first use and kept: its dictionaries (about 100,000 words) take a few
 * hundred milliseconds to rank, paid once per process (at start-up in production, where the
 * configured secrets are checked; at the first sign-up otherwise), never per value.
 */
function strengthEstimator(): ZxcvbnFactory {
  estimator ??= new ZxcvbnFactory({
    dictionary: { ...common.dictionary, ...english.dictionary },
    graphs: common.adjacencyGraphs,
    translations: english.translations,
    maxLength: ESTIMATED_LENGTH,
    l33tMaxSubstitutions: MAX_SWAPS_TRIED,
  });
  return estimator;
}

/**
 * Why `value` needs fewer than 10^`minGuessesLog10` guesses, or undefined when it needs at least
 * that many. `context` holds words the value must not lean on (the system's name, an email). The
 * reason never contains the value: it is the estimate and, when there is one, the estimator's
 * warning (`This is similar to a commonly used password.`).
 */
export function guessability(value: string, minGuessesLog10: number, context: readonly string[] = []): string | undefined {
  const estimate = strengthEstimator().check(value, [...SYSTEM_WORDS, ...context]);
  if (estimate.guessesLog10 >= minGuessesLog10) return undefined;
  const guesses = `about 10^${Math.max(0, Math.floor(estimate.guessesLog10))} guesses would find it, fewer than the 10^${minGuessesLog10} required`;
  const warning = estimate.feedback.warning;
  return warning ? `${guesses}: ${warning.replace(/\.$/, '')}` : guesses;
}

/** Why `value` is too easy to guess to be a production secret, or undefined when it is not. */
export function secretWeakness(value: string): string | undefined {
  return guessability(value, SECRET_MIN_GUESSES_LOG10);
}

/**
 * Why `password` is too easy to guess for a portal account whose email is `email`, or undefined.
 * Every place a password is chosen (sign-up, a password reset) asks this.
 */
export function passwordWeakness(password: string, email: string): string | undefined {
  const at = email.lastIndexOf('@');
  const emailWords = at < 0 ? [email] : [email, email.slice(0, at), ...email.slice(at + 1).split('.')];
  return guessability(password.normalize('NFKC'), PASSWORD_MIN_GUESSES_LOG10, emailWords.filter((word) => word.length > 2));
}
