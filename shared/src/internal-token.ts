import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';

/**
 * Internal service tokens: short-lived HS256 JWTs that the pets-service trusts.
 *
 * The gateway signs one per request (`iss: "gateway"`, `sub`: the account id);
 * another internal service signs its own with `signServiceToken("NAME", secret)`
 * (`iss: "service:NAME"`). The pets-service verifies with `verifyInternalToken`.
 */
export const INTERNAL_AUDIENCE = 'pets-service';
export const GATEWAY_ISSUER = 'gateway';
export const MAX_TOKEN_LIFETIME_SECONDS = 300;
const ALGORITHM = 'HS256' as const;
const CLOCK_TOLERANCE_SECONDS = 5;
const SERVICE_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const ACCEPTED_ISSUER = /^(gateway|service:[a-z0-9][a-z0-9-]{0,62})$/;

/**
 * jsonwebtoken turns a string secret into a key on every call, first trying it as a PEM public
 * key (to refuse that): measured as a third of the pets-service's CPU. A secret key object,
 * made once per secret, skips both.
 */
const secretKeys = new Map<string, KeyObject>();
function secretKeyOf(secret: string): KeyObject {
  let key = secretKeys.get(secret);
  if (!key) {
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    secretKeys.set(secret, key);
  }
  return key;
}

export interface InternalClaims {
  iss: string;
  sub: string;
  aud: string;
  iat: number;
  exp: number;
}

export interface SignOptions {
  issuer: string;
  subject: string;
  /** At most 300 seconds; defaults to 60. */
  lifetimeSeconds?: number;
}

export function signInternalToken(secret: string, { issuer, subject, lifetimeSeconds = 60 }: SignOptions): string {
  if (!ACCEPTED_ISSUER.test(issuer)) throw new Error(`issuer must be "gateway" or "service:NAME", got "${issuer}"`);
  if (!Number.isInteger(lifetimeSeconds) || lifetimeSeconds < 1 || lifetimeSeconds > MAX_TOKEN_LIFETIME_SECONDS) {
    throw new Error(`lifetimeSeconds must be an integer from 1 to ${MAX_TOKEN_LIFETIME_SECONDS}`);
  }
  return jwt.sign({}, secretKeyOf(secret), {
    algorithm: ALGORITHM,
    audience: INTERNAL_AUDIENCE,
    issuer,
    subject,
    expiresIn: lifetimeSeconds,
  });
}

/** The helper for internal services other than the gateway. */
export function signServiceToken(serviceName: string, secret: string, lifetimeSeconds = 300): string {
  if (!SERVICE_NAME.test(serviceName)) {
    throw new Error('service name must be lower-case letters, digits and dashes, starting with a letter or digit');
  }
  return signInternalToken(secret, { issuer: `service:${serviceName}`, subject: `service:${serviceName}`, lifetimeSeconds });
}

export class InvalidInternalToken extends Error {}

/**
 * Verifies signature (HS256 only), audience, expiry and issuer; throws InvalidInternalToken otherwise.
 * jsonwebtoken matches issuers only exactly, so the `service:NAME` family is checked in `checkClaims`.
 */
export function verifyInternalToken(token: string, secret: string): InternalClaims {
  let payload: string | jwt.JwtPayload;
  try {
    payload = jwt.verify(token, secretKeyOf(secret), { algorithms: [ALGORITHM], audience: INTERNAL_AUDIENCE, clockTolerance: CLOCK_TOLERANCE_SECONDS });
  } catch (error) {
    throw new InvalidInternalToken(error instanceof Error ? error.message : 'invalid token');
  }
  return checkClaims(payload);
}

function checkClaims(payload: string | jwt.JwtPayload): InternalClaims {
  if (typeof payload === 'string') throw new InvalidInternalToken('token payload is not an object');
  const { iss, sub, iat, exp } = payload;
  if (typeof iss !== 'string' || !ACCEPTED_ISSUER.test(iss)) throw new InvalidInternalToken('issuer not accepted');
  if (typeof sub !== 'string' || sub.length === 0) throw new InvalidInternalToken('subject missing');
  if (typeof exp !== 'number') throw new InvalidInternalToken('expiry missing');
  if (typeof iat !== 'number') throw new InvalidInternalToken('issued-at missing');
  if (exp - iat > MAX_TOKEN_LIFETIME_SECONDS) throw new InvalidInternalToken('token lifetime exceeds 5 minutes');
  // Otherwise a token issued "in the future" would stay valid for as long as its issuer liked.
  const now = Math.floor(Date.now() / 1000);
  if (iat > now + CLOCK_TOLERANCE_SECONDS || exp > now + MAX_TOKEN_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS) {
    throw new InvalidInternalToken('token issued in the future');
  }
  return { iss, sub, aud: INTERNAL_AUDIENCE, iat, exp };
}

/**
 * `verifyInternalToken` with a memory of the tokens it has accepted: a token that verified once
 * verifies again until it expires (the only thing time can change about it), so a repeat costs a map
 * lookup and an expiry check instead of an HMAC and jsonwebtoken's option handling. The gateway
 * sends the same token for all of an account's requests within one second, so repeats are the rule
 * under load. Refusals are not remembered; the map is bounded.
 */
export function createInternalTokenVerifier(secret: string, { maxEntries = 10_000 }: { maxEntries?: number } = {}): (token: string) => InternalClaims {
  const accepted = new Map<string, InternalClaims>();
  return (token) => {
    const known = accepted.get(token);
    if (known) {
      if (known.exp + CLOCK_TOLERANCE_SECONDS > Date.now() / 1000) return known;
      accepted.delete(token);
    }
    const claims = verifyInternalToken(token, secret);
    if (accepted.size >= maxEntries) accepted.delete(accepted.keys().next().value!);
    accepted.set(token, claims);
    return claims;
  };
}
