import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { sameSecret } from '../keys/api-key';

/**
 * Device cookies (OWASP's answer to lock-outs): a browser that has logged in to an account before
 * holds a signed cookie naming that account's email. Its log-ins skip the per-address and per-email
 * rules that strangers' guesses run into, and count against a limit of their own instead, so an
 * attacker's failures can neither lock out nor slow down the owner's usual browser, and a stolen
 * cookie is no licence to guess.
 *
 * The value is `<device id>.<signature>`, the signature an HMAC over the id and the email with a key
 * derived (HKDF) from INTERNAL_JWT_SECRET: every replica can check it, nothing is stored, and the
 * email itself is not in the cookie. Changing that secret makes every browser a stranger again.
 */
export const DEVICE_COOKIE_DAYS = 90;

const SHAPE = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

export class DeviceCookies {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'animal-store', 'portal device cookie', 32));
  }

  /** A cookie value for this browser and email: the same device id again when it already had one. */
  issue(email: string, deviceId: string = randomBytes(16).toString('base64url')): string {
    return `${deviceId}.${this.sign(deviceId, email)}`;
  }

  /** The device id when `value` is a cookie this deployment issued for `email`, else undefined. */
  verify(value: string | undefined, email: string): string | undefined {
    const match = value === undefined ? null : SHAPE.exec(value);
    if (!match) return undefined;
    return sameSecret(match[2]!, this.sign(match[1]!, email)) ? match[1] : undefined;
  }

  private sign(deviceId: string, email: string): string {
    return createHmac('sha256', this.key).update(`${deviceId}\n${email}`).digest('base64url');
  }
}
