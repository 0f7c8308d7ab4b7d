import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { EnvReader } from '../../shared/src/env';
import { SECRET_MIN_LENGTH, readSharedSettings, type SharedSettings } from '../../shared/src/settings';
import { isHostName } from './admin/host-check';
import { ADMIN_TOKEN_NAME, ADMIN_TOKEN_TEXT, SHARED_TOKEN_ACTOR, type AdminToken } from './admin/tokens';
import { DEFAULT_REDIS_TIMEOUT_MS, type ClusterNode, type RedisTarget } from './redis';
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from './webhooks/retry-schedule';

export interface GatewayConfig extends SharedSettings {
  host: string;
  port: number;
  adminHost: string;
  adminPort: number;
  /** `ADMIN_ALLOWED_HOSTS`: names besides ADMIN_HOST and the loopback ones that requests to the admin port may be sent to. */
  adminAllowedHosts: readonly string[];
  redisUrl: string | undefined;
  /** Seed nodes of a Redis Cluster (`REDIS_CLUSTER_NODES`), used instead of `redisUrl`. */
  redisClusterNodes: readonly ClusterNode[] | undefined;
  /** `REDIS_TIMEOUT_MS`: how long a request waits on Redis before the limiter counts in process (a key lookup: twice as long, then 503). */
  redisTimeoutMs: number;
  /** `PETS_URL`: one or more pets-service base URLs; requests are spread over them. */
  petsUrls: string[];
  /** ADMIN_TOKEN ('' when only ADMIN_TOKENS is set). */
  adminToken: string;
  /** True when no ADMIN_TOKEN was given and one was generated for this run. */
  adminTokenGenerated: boolean;
  /** Every token the admin API accepts, with the name it stands for: ADMIN_TOKEN as `admin`, then ADMIN_TOKENS. */
  adminTokens: readonly AdminToken[];
  upstreamTimeoutMs: number;
  /** How long one try of a GET or HEAD waits before going to another replica (0: never; see pets-proxy.ts). */
  upstreamTryTimeoutMs: number;
  /** Express's `trust proxy` value: false, a hop count, or a list of addresses and CIDR ranges. */
  trustProxy: false | number | string[];
  anonPerMinute: number;
  /** IPv6 clients share one anonymous budget per network of this many leading bits (a /64: one subscriber). */
  anonIpv6PrefixLength: number;
  /** `KEY_LOOKUPS_PER_MINUTE`: look-ups of keys this replica does not know that one client starts at once, per minute (valid keys give theirs back). */
  keyLookupsPerMinute: number;
  /** `KEY_LOOKUP_QUEUE_PER_SECOND`: look-ups per second one replica makes for clients past that budget (queued, never refused). */
  keyLookupQueuePerSecond: number;
  /** null: the key's per-minute limit. */
  banThreshold: number | null;
  banSeconds: number;
  /** How often each replica sends its usage-board observations and keys' last use to the store: their staleness. */
  opsFlushIntervalMs: number;
  /** Whether the developer portal lets anyone create an account (`PORTAL_SIGNUP`). */
  portalSignup: PortalSignup;
  /** `GATEWAY_WORKERS`: processes serving both ports (node:cluster); more than 1 needs Redis. */
  workers: number;
  /** `PREFLIGHT_PER_MINUTE`: CORS preflights (free of API quota) one client address may send per minute, per replica. */
  preflightPerMinute: number;
  /** `CORS_ORIGINS`: the origins (`https://app.example.com`) whose pages may call /v1; empty: no CORS headers at all. */
  corsOrigins: readonly string[];
  /** `GATEWAY_MIDDLEWARE`: the operator's middleware modules, as given (relative to the working directory, or absolute), in order. */
  gatewayMiddleware: readonly string[];
  /** `WEBHOOK_ALLOW_PRIVATE=true`: webhook endpoints may be http:// and internal addresses (development and tests only). */
  webhookAllowPrivate: boolean;
  /** `WEBHOOK_RETRY_SCHEDULE`: the delays (ms) between a failed delivery attempt and the next. */
  webhookRetryDelaysMs: readonly number[];
  /** `SMTP_URL` (smtp:// or smtps://): the mail server emails go through; undefined: each email is written to the log. */
  smtpUrl: string | undefined;
  /** `MAIL_FROM`: the sender of every email. */
  mailFrom: string;
}

export const DEFAULT_MAIL_FROM = 'Animal Store <no-reply@localhost>';
/** `Name <address>` or a bare address, on one line. */
const MAIL_FROM_SHAPE = /^(?:[^<>\r\n"]*<[^<>@\s]+@[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+)$/;

export const PORTAL_SIGNUP_MODES = ['open', 'closed'] as const;
export type PortalSignup = (typeof PORTAL_SIGNUP_MODES)[number];

const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

/** Reads and validates the gateway's environment once; throws a ConfigError naming every bad variable. */
export function loadGatewayConfig(env: NodeJS.ProcessEnv): Readonly<GatewayConfig> {
  const read = new EnvReader(env);
  const named = readAdminTokens(read);
  // Operators with tokens of their own need no shared one: none is required or generated then.
  const adminToken = named.length > 0 && env.ADMIN_TOKEN === undefined ? { value: '', generated: false } : read.secret('ADMIN_TOKEN', () => randomBytes(24).toString('base64url'), SECRET_MIN_LENGTH);
  const adminTokens = [...(adminToken.value ? [{ name: SHARED_TOKEN_ACTOR, token: adminToken.value }] : []), ...named];
  checkDistinct(read, adminTokens, adminToken.value !== '');
  const config: GatewayConfig = {
    ...readSharedSettings(read),
    host: read.string('HOST') ?? '0.0.0.0',
    port: read.port('PORT', 8080),
    adminHost: read.string('ADMIN_HOST') ?? '127.0.0.1',
    adminPort: read.port('ADMIN_PORT', 8081),
    adminAllowedHosts: parseAllowedHosts(read),
    redisUrl: read.url('REDIS_URL', undefined, ['redis:', 'rediss:']),
    redisClusterNodes: parseClusterNodes(read),
    redisTimeoutMs: read.integer('REDIS_TIMEOUT_MS', DEFAULT_REDIS_TIMEOUT_MS, { min: 10, max: 5_000 }),
    petsUrls: read.urlList('PETS_URL', ['http://127.0.0.1:8082'], ['http:', 'https:']),
    adminToken: adminToken.value,
    adminTokenGenerated: adminToken.generated,
    adminTokens,
    upstreamTimeoutMs: read.integer('UPSTREAM_TIMEOUT_MS', 10_000, { min: 1, max: 600_000 }),
    upstreamTryTimeoutMs: read.integer('UPSTREAM_TRY_TIMEOUT_MS', 2_000, { min: 0, max: 600_000 }),
    trustProxy: parseTrustProxy(read),
    anonPerMinute: read.integer('ANON_PER_MINUTE', 60, { min: 1, max: 1_000_000 }),
    anonIpv6PrefixLength: read.integer('ANON_IPV6_PREFIX_LENGTH', 64, { min: 1, max: 128 }),
    keyLookupsPerMinute: read.integer('KEY_LOOKUPS_PER_MINUTE', 120, { min: 1, max: 1_000_000 }),
    keyLookupQueuePerSecond: read.integer('KEY_LOOKUP_QUEUE_PER_SECOND', 100, { min: 1, max: 100_000 }),
    banThreshold: read.string('BAN_THRESHOLD') === undefined ? null : read.integer('BAN_THRESHOLD', 1, { min: 1, max: 1_000_000 }),
    banSeconds: read.integer('BAN_SECONDS', 900, { min: 1, max: 30 * 86_400 }),
    opsFlushIntervalMs: read.integer('OPS_FLUSH_INTERVAL_MS', 1_000, { min: 100, max: 60_000 }),
    portalSignup: read.oneOf('PORTAL_SIGNUP', 'open', PORTAL_SIGNUP_MODES),
    workers: read.integer('GATEWAY_WORKERS', 1, { min: 1, max: 64 }),
    corsOrigins: parseCorsOrigins(read),
    preflightPerMinute: read.integer('PREFLIGHT_PER_MINUTE', 600, { min: 1, max: 1_000_000 }),
    gatewayMiddleware: parseModuleList(read),
    webhookAllowPrivate: read.oneOf('WEBHOOK_ALLOW_PRIVATE', 'false', ['true', 'false']) === 'true',
    webhookRetryDelaysMs: parseWebhookRetrySchedule(read),
    smtpUrl: read.url('SMTP_URL', undefined, ['smtp:', 'smtps:']),
    mailFrom: read.string('MAIL_FROM')?.trim() ?? DEFAULT_MAIL_FROM,
  };
  if (!MAIL_FROM_SHAPE.test(config.mailFrom)) read.problem(`MAIL_FROM must be an address (no-reply@example.com) or a name and an address (Animal Store <no-reply@example.com>), got "${config.mailFrom}"`);
  if (config.workers > 1 && config.redisUrl === undefined && config.redisClusterNodes === undefined) {
    read.problem(
      `GATEWAY_WORKERS is ${config.workers}, but without REDIS_URL or REDIS_CLUSTER_NODES each worker would keep its own accounts, keys and limits: set a Redis, or GATEWAY_WORKERS=1`,
    );
  }
  if (config.port !== 0 && config.port === config.adminPort) read.problem('PORT and ADMIN_PORT must differ');
  if (read.string('REDIS_URL') !== undefined && read.string('REDIS_CLUSTER_NODES') !== undefined) {
    read.problem('REDIS_URL and REDIS_CLUSTER_NODES are both set: choose one Redis, a single server (REDIS_URL) or a cluster (REDIS_CLUSTER_NODES)');
  }
  read.finish();
  return Object.freeze(config);
}

/**
 * `ADMIN_TOKENS=name:token,name:token`: each operator's own token (split at the first colon, so a
 * token may hold colons). Problems name the entry by its name, never by its token.
 */
function readAdminTokens(read: EnvReader): AdminToken[] {
  const raw = read.string('ADMIN_TOKENS');
  if (raw === undefined) return [];
  const tokens: AdminToken[] = [];
  raw.split(',').forEach((entry, i) => {
    const trimmed = entry.trim();
    const colon = trimmed.indexOf(':');
    if (colon < 0) {
      read.problem(`ADMIN_TOKENS must be a comma-separated list of name:token, but entry ${i + 1} has no ":"`);
      return;
    }
    const name = trimmed.slice(0, colon);
    const token = trimmed.slice(colon + 1);
    if (!ADMIN_TOKEN_NAME.test(name)) {
      read.problem(`ADMIN_TOKENS: entry ${i + 1} has the name "${name}"; a name is 1-32 lower-case letters, digits, ".", "_" or "-", starting with a letter or digit`);
    } else if (!ADMIN_TOKEN_TEXT.test(token)) {
      read.problem(`ADMIN_TOKENS: the token of "${name}" must be visible ASCII characters other than a comma`);
    } else if (token.length < SECRET_MIN_LENGTH) {
      read.problem(`ADMIN_TOKENS: the token of "${name}" must be at least ${SECRET_MIN_LENGTH} characters long`);
    } else {
      read.strongInProduction(`ADMIN_TOKENS: the token of "${name}"`, token);
      tokens.push({ name, token });
    }
  });
  return tokens;
}

/** A name must say who acted, and a token must say which name: neither may appear twice (ADMIN_TOKEN's `admin` included). */
function checkDistinct(read: EnvReader, tokens: readonly AdminToken[], sharedFirst: boolean): void {
  const owner = (i: number) => (sharedFirst && i === 0 ? 'ADMIN_TOKEN' : `"${tokens[i]!.name}"`);
  tokens.forEach((token, i) => {
    const earlier = tokens.slice(0, i);
    if (earlier.some((other) => other.name === token.name)) {
      read.problem(`ADMIN_TOKENS: the name "${token.name}" is given twice${sharedFirst && token.name === SHARED_TOKEN_ACTOR ? ' (it is the name of ADMIN_TOKEN)' : ''}`);
    }
    const same = earlier.findIndex((other) => other.token === token.token);
    if (same >= 0) read.problem(`ADMIN_TOKENS: "${token.name}" has the same token as ${owner(same)}`);
  });
}

/** Where the gateway keeps its state: a single Redis, a Redis Cluster, or (undefined) in process. */
export function redisTargetOf(config: Pick<GatewayConfig, 'redisUrl' | 'redisClusterNodes'>): RedisTarget | undefined {
  if (config.redisClusterNodes) return { clusterNodes: config.redisClusterNodes };
  if (config.redisUrl) return { url: config.redisUrl };
  return undefined;
}

/** `ADMIN_ALLOWED_HOSTS=ops.internal,10.0.0.5`: host names or IP addresses, without ports (any port is accepted). */
function parseAllowedHosts(read: EnvReader): string[] {
  const raw = read.string('ADMIN_ALLOWED_HOSTS');
  if (raw === undefined) return [];
  const names = raw.split(',').map((entry) => entry.trim().toLowerCase().replace(/\.$/, ''));
  const invalid = names.filter((name) => !isHostName(name));
  if (invalid.length > 0) {
    read.problem(`ADMIN_ALLOWED_HOSTS must be a comma-separated list of host names or IP addresses without ports, but ${invalid.map((e) => `"${e}"`).join(', ')} ${invalid.length === 1 ? 'is not one' : 'are not'}`);
    return [];
  }
  return names;
}

/**
 * `CORS_ORIGINS=https://app.example.com,http://localhost:3000`: each an origin as a browser sends it
 * in `Origin` (http or https, a host, an optional port; no path, not even `/`), kept in that
 * serialised form (lower-case host, no default port) so that matching is a plain comparison.
 */
function parseCorsOrigins(read: EnvReader): string[] {
  const raw = read.string('CORS_ORIGINS');
  if (raw === undefined) return [];
  const entries = raw.split(',').map((entry) => entry.trim());
  const origins = entries.map(originOf);
  const invalid = entries.filter((_, i) => origins[i] === undefined);
  if (invalid.length > 0) {
    read.problem(
      `CORS_ORIGINS must be a comma-separated list of origins, scheme://host[:port] with http or https and no path (e.g. https://app.example.com), but ${invalid.map((e) => `"${e}"`).join(', ')} ${invalid.length === 1 ? 'is not one' : 'are not'}`,
    );
    return [];
  }
  return [...new Set(origins as string[])];
}

function originOf(entry: string): string | undefined {
  if (!/^https?:\/\/[^/?#@]+$/i.test(entry)) return undefined;
  try {
    return new URL(entry).origin;
  } catch {
    return undefined;
  }
}

/** `GATEWAY_MIDDLEWARE=./plugins/a.js,/opt/b.mjs`: module paths; an empty entry is a mistake, not "nothing". */
function parseModuleList(read: EnvReader): string[] {
  const raw = read.string('GATEWAY_MIDDLEWARE');
  if (raw === undefined) return [];
  const entries = raw.split(',').map((entry) => entry.trim());
  if (entries.some((entry) => entry === '')) {
    read.problem(`GATEWAY_MIDDLEWARE must be a comma-separated list of module paths, but it holds an empty entry: "${raw}"`);
    return [];
  }
  return entries;
}

function parseWebhookRetrySchedule(read: EnvReader): readonly number[] {
  const delays = parseRetrySchedule(read.string('WEBHOOK_RETRY_SCHEDULE') ?? DEFAULT_RETRY_SCHEDULE);
  if (typeof delays !== 'string') return delays;
  read.problem(`WEBHOOK_RETRY_SCHEDULE: ${delays}`);
  return [];
}

function parseClusterNodes(read: EnvReader): ClusterNode[] | undefined {
  const raw = read.string('REDIS_CLUSTER_NODES');
  if (raw === undefined) return undefined;
  const entries = raw.split(',').map((entry) => entry.trim());
  const nodes = entries.map(parseHostPort);
  const invalid = entries.filter((_, i) => nodes[i] === undefined);
  if (invalid.length > 0) {
    const named = invalid.map((e) => `"${e}"`).join(', ');
    read.problem(`REDIS_CLUSTER_NODES must be a comma-separated list of host:port (port 1-65535), but ${named} ${invalid.length === 1 ? 'is not one' : 'are not'}`);
    return undefined;
  }
  return nodes as ClusterNode[];
}

/** `host:port`, `[v6]:port`; the port 1–65535. */
function parseHostPort(entry: string): ClusterNode | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(entry);
  const port = Number(match?.[3]);
  const host = match?.[1] ?? match?.[2];
  if (!host || !Number.isInteger(port) || port < 1 || port > 65_535) return undefined;
  if (match?.[1] !== undefined && isIP(host) !== 6) return undefined;
  return { host, port };
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
