import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { EnvReader } from '../../shared/src/env';
import { readSharedSettings, type SharedSettings } from '../../shared/src/settings';

export interface GatewayConfig extends SharedSettings {
  host: string;
  port: number;
  adminHost: string;
  adminPort: number;
  redisUrl: string | undefined;
  petsUrl: string;
  adminToken: string;
  /** True when no ADMIN_TOKEN was given and one was generated for this run. */
  adminTokenGenerated: boolean;
  upstreamTimeoutMs: number;
  /** A request body must arrive whole within this, or the answer is 408 request_timeout. */
  bodyTimeoutMs: number;
  /** Express's `trust proxy` value: false, a hop count, or a list of addresses and CIDR ranges. */
  trustProxy: false | number | string[];
  anonPerMinute: number;
  /** null: the key's per-minute limit. */
  banThreshold: number | null;
  banSeconds: number;
  /** Whether the developer portal lets anyone create an account (`PORTAL_SIGNUP`). */
  portalSignup: PortalSignup;
}

export const PORTAL_SIGNUP_MODES = ['open', 'closed'] as const;
export type PortalSignup = (typeof PORTAL_SIGNUP_MODES)[number];

const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

/** Reads and validates the gateway's environment once; throws a ConfigError naming every bad variable. */
export function loadGatewayConfig(env: NodeJS.ProcessEnv): Readonly<GatewayConfig> {
  const read = new EnvReader(env);
  const adminToken = read.secret('ADMIN_TOKEN', () => randomBytes(24).toString('base64url'));
  const config: GatewayConfig = {
    ...readSharedSettings(read),
    host: read.string('HOST') ?? '0.0.0.0',
    port: read.port('PORT', 8080),
    adminHost: read.string('ADMIN_HOST') ?? '127.0.0.1',
    adminPort: read.port('ADMIN_PORT', 8081),
    redisUrl: read.url('REDIS_URL', undefined, ['redis:', 'rediss:']),
    petsUrl: read.url('PETS_URL', 'http://127.0.0.1:8082', ['http:', 'https:']) ?? 'http://127.0.0.1:8082',
    adminToken: adminToken.value,
    adminTokenGenerated: adminToken.generated,
    upstreamTimeoutMs: read.integer('UPSTREAM_TIMEOUT_MS', 10_000, { min: 1, max: 600_000 }),
    bodyTimeoutMs: read.integer('BODY_TIMEOUT_MS', 10_000, { min: 1, max: 600_000 }),
    trustProxy: parseTrustProxy(read),
    anonPerMinute: read.integer('ANON_PER_MINUTE', 60, { min: 1, max: 1_000_000 }),
    banThreshold: read.string('BAN_THRESHOLD') === undefined ? null : read.integer('BAN_THRESHOLD', 1, { min: 1, max: 1_000_000 }),
    banSeconds: read.integer('BAN_SECONDS', 900, { min: 1, max: 30 * 86_400 }),
    portalSignup: read.oneOf('PORTAL_SIGNUP', 'open', PORTAL_SIGNUP_MODES),
  };
  if (config.port !== 0 && config.port === config.adminPort) read.problem('PORT and ADMIN_PORT must differ');
  read.finish();
  return Object.freeze(config);
}

function parseTrustProxy(read: EnvReader): GatewayConfig['trustProxy'] {
  const raw = read.string('TRUST_PROXY');
  if (raw === undefined) return false;
  if (/^\d+$/.test(raw.trim())) return Number(raw);
  const entries = raw.split(',').map((entry) => entry.trim());
  const invalid = entries.filter((entry) => !isAddressOrRange(entry));
  if (invalid.length > 0 || entries.length === 0) {
    read.problem(
      `TRUST_PROXY must be a hop count or a comma-separated list of addresses and CIDR ranges, but ${invalid.map((e) => `"${e}"`).join(', ')} is not one`,
    );
    return false;
  }
  return entries;
}

function isAddressOrRange(entry: string): boolean {
  if (NAMED_RANGES.includes(entry)) return true;
  const [address, bits, extra] = entry.split('/');
  if (extra !== undefined || !address) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}
