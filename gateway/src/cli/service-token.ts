import { ConfigError, EnvReader } from '../../../shared/src/env';
import { MAX_TOKEN_LIFETIME_SECONDS, signServiceToken } from '../../../shared/src/internal-token';
import { readInternalJwtSecret } from '../../../shared/src/settings';
import { UsageError, type Env } from './io';

/** A signed internal token and what the operator needs to know about it. */
export interface SignedServiceToken {
  token: string;
  issuer: string;
  audience: 'pets-service';
  expiresAt: string;
}

/**
 * `token`: signs an internal service token locally (no API call) with INTERNAL_JWT_SECRET, read by
 * the same rule as both services (outside production the generated development secret when unset).
 */
export function signTokenFor(service: string, ttlSeconds: number, env: Env): SignedServiceToken {
  const reader = new EnvReader(env as NodeJS.ProcessEnv);
  const secret = readInternalJwtSecret(reader);
  try {
    reader.finish();
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.problems.join('; '));
    throw error;
  }
  let token: string;
  try {
    token = signServiceToken(service, secret.value, ttlSeconds);
  } catch (error) {
    throw new UsageError(`--service: ${(error as Error).message}`);
  }
  return { token, issuer: `service:${service}`, audience: 'pets-service', expiresAt: new Date(Date.now() + ttlSeconds * 1000).toISOString() };
}

export { MAX_TOKEN_LIFETIME_SECONDS };
