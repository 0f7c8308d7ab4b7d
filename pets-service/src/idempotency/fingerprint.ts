import { createHash } from 'node:crypto';
import { configure } from 'safe-stable-stringify';

/** Object members in sorted order, so that member order does not make two JSON values different. */
const canonicalJson = configure({ deterministic: true });

/**
 * What "the same body" means for an idempotent create: the same JSON value once parsed, whatever its
 * spelling (member order, white space, escapes, `1.0` for `1`). SHA-256 of the value written
 * canonically: a fixed 64 characters to store and compare, whatever the body's size.
 */
export function fingerprintOf(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value) ?? 'undefined').digest('hex');
}
