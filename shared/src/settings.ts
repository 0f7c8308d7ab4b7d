import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { EnvReader, type NodeEnvironment } from './env';

/**
 * The settings both services read, each defined once: its variable, default and rule.
 * Each service's own settings (ports, stores) are in its `config.ts`, built on the same reader.
 */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The shortest secret an operator may set (ADMIN_TOKEN, each token of ADMIN_TOKENS). */
export const SECRET_MIN_LENGTH = 16;
/** HS256 needs a key at least as long as its output (RFC 7518 §3.2): 256 bits. */
export const INTERNAL_JWT_SECRET_MIN_LENGTH = 32;

export const API_ENVIRONMENTS = ['production', 'staging'] as const;
export type ApiEnvironment = (typeof API_ENVIRONMENTS)[number];
export const DEFAULT_API_ENVIRONMENT: ApiEnvironment = 'production';

/** How long a request body may take to arrive whole, unless BODY_TIMEOUT_MS says otherwise. */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;

/** The path every public URL of the API starts with. */
export const PUBLIC_PATH_PREFIX = '/v1';

export interface SharedSettings {
  readonly nodeEnv: NodeEnvironment;
  readonly production: boolean;
  readonly internalJwtSecret: string;
  /** True when no secret was configured and the shared development one is used. */
  readonly internalJwtSecretGenerated: boolean;
  readonly logLevel: LogLevel;
  /** `PUBLIC_BASE_URL` without a trailing slash (it ends in `/v1`), or undefined: links are relative then. */
  readonly publicBaseUrl: string | undefined;
  readonly apiEnvironment: ApiEnvironment;
  /** `BODY_TIMEOUT_MS`: a request body (JSON, a portal form, an admin request) must arrive whole within this, or 408 request_timeout. */
  readonly bodyTimeoutMs: number;
}

/**
 * `INTERNAL_JWT_SECRET`, by the one rule every reader applies (both services and the CLI's `token`):
 * required in production, at least INTERNAL_JWT_SECRET_MIN_LENGTH characters, elsewhere the shared
 * generated development secret when unset.
 */
export function readInternalJwtSecret(read: EnvReader): { value: string; generated: boolean } {
  return read.secret('INTERNAL_JWT_SECRET', () => developmentSecret(), INTERNAL_JWT_SECRET_MIN_LENGTH);
}

/**
 * Outside production, the gateway and the pets-service must agree on the internal-token
 * secret without any configuration, also when started separately: the first one to need it
 * writes a random one next to the data, readable only by its owner.
 */
export function developmentSecret(file = path.join('data', '.dev-internal-jwt-secret')): string {
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (existing.length >= INTERNAL_JWT_SECRET_MIN_LENGTH) return existing;
  } catch {
    // not there yet
  }
  const secret = randomBytes(32).toString('base64url');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}

export function readSharedSettings(read: EnvReader): SharedSettings {
  const secret = readInternalJwtSecret(read);
  return {
    nodeEnv: read.nodeEnv,
    production: read.production,
    internalJwtSecret: secret.value,
    internalJwtSecretGenerated: secret.generated,
    logLevel: read.oneOf('LOG_LEVEL', 'info', LOG_LEVELS),
    publicBaseUrl: readPublicBaseUrl(read),
    apiEnvironment: read.oneOf('API_ENVIRONMENT', DEFAULT_API_ENVIRONMENT, API_ENVIRONMENTS),
    bodyTimeoutMs: read.integer('BODY_TIMEOUT_MS', DEFAULT_BODY_TIMEOUT_MS, { min: 1, max: 600_000 }),
  };
}

/**
 * The public address of the API, e.g. `https://api.animalstore.example/v1`: an http(s) URL whose
 * path ends in `/v1`, with no query, fragment or credentials, since links are built by appending to it.
 */
function readPublicBaseUrl(read: EnvReader): string | undefined {
  const raw = read.string('PUBLIC_BASE_URL');
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    read.problem(`PUBLIC_BASE_URL must be an absolute http:// or https:// URL ending in ${PUBLIC_PATH_PREFIX}, got "${raw}"`);
    return undefined;
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (!['http:', 'https:'].includes(url.protocol) || url.search || url.hash || url.username || url.password || !path.endsWith(PUBLIC_PATH_PREFIX)) {
    read.problem(
      `PUBLIC_BASE_URL must be an http:// or https:// URL ending in ${PUBLIC_PATH_PREFIX}, without query, fragment or credentials (e.g. https://api.animalstore.example/v1), got "${raw}"`,
    );
    return undefined;
  }
  return `${url.origin}${path}`;
}
