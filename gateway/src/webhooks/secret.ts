import { randomBytes } from 'node:crypto';

/**
 * An endpoint's signing secret, as the Standard Webhooks specification writes them: `whsec_` and
 * the base64 of random bytes (32 here; the specification allows 24 to 64). The endpoint's owner
 * sees it once, when the endpoint is added; the store keeps it, since every delivery is signed with it.
 */
export const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The key the signature is computed with: the secret's decoded bytes. */
export function secretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('a webhook secret starts with whsec_');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}
