/**
 * Whether a configured secret (an admin token, the internal-token secret) looks chosen by a person
 * rather than generated: checked in production, where `ADMIN_TOKEN=aaaaaaaaaaaaaaaa` and a secret
 * of 32 × `a` used to be accepted because they were long enough. Length alone says nothing about
 * how guessable a value is; these rules refuse the obvious patterns without refusing anything a
 * generator produces: a random 16-character hex value (the shortest a generator would give) has
 * fewer than 5 distinct characters less than once in ten million.
 */

/** How to make a good one, in every refusal. */
export const GENERATE_SECRET_HINT = 'generate one with: openssl rand -base64 32';

/** Distinct characters a secret must have at least. */
export const MIN_DISTINCT_CHARACTERS = 5;

/** Why `value` is too weak to be a production secret, or undefined when it is not obviously so. */
export function secretWeakness(value: string): string | undefined {
  const characters = [...value];
  if (characters.length === 0) return 'it is empty';
  if (new Set(characters).size === 1) return 'it is one character repeated';
  const period = shortestPeriod(characters);
  if (period < characters.length && period <= characters.length / 2) return `it repeats a pattern of ${period} characters`;
  if (isRun(characters)) return 'it is a run of consecutive characters';
  if (new Set(characters.map((c) => c.toLowerCase())).size < MIN_DISTINCT_CHARACTERS) return `it has fewer than ${MIN_DISTINCT_CHARACTERS} different characters`;
  return undefined;
}

/** The length of the shortest block whose repetition makes `characters` (its own length when none). */
function shortestPeriod(characters: string[]): number {
  for (let period = 1; period < characters.length; period += 1) {
    if (characters.every((c, i) => i < period || c === characters[i - period])) return period;
  }
  return characters.length;
}

/** `abcdef…`, `0123…`, `zyxw…`: each character one code point after (or before) the previous. */
function isRun(characters: string[]): boolean {
  const step = characters[1]!.codePointAt(0)! - characters[0]!.codePointAt(0)!;
  if (Math.abs(step) !== 1) return false;
  return characters.every((c, i) => i === 0 || c.codePointAt(0)! - characters[i - 1]!.codePointAt(0)! === step);
}
