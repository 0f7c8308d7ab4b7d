import type { RedisClient } from '../redis';
import { storeCall } from '../store-errors';
import type { Credential, PortalStore, SessionRecord } from './store';

/** The prefix the gateway's Redis keys share (the account store's default); every portal key is built on it. */
export const DEFAULT_PORTAL_REDIS_PREFIX = '{gw}:';

const STORE_DEADLINE_MS = 500;

/**
 * Every Redis key the portal uses, in one place, so that a deployment on Redis Cluster can give
 * them all one hash tag through the prefix (e.g. `{gw}:`). Each command below touches one key.
 */
export function portalRedisKeys(prefix: string) {
  return {
    /** string: JSON `{reservation}` while a sign-up is under way, then the Credential. */
    login: (email: string) => `${prefix}portal:login:${email}`,
    /** string: JSON SessionRecord, expiring after the session's idle time. */
    session: (id: string) => `${prefix}portal:session:${id}`,
    /** set: the ids of the account's sessions (some may have ended), so a new password can end them all. */
    sessionsOf: (accountId: string) => `${prefix}portal:sessions-of:${accountId}`,
    /** rate-limiter-flexible's key prefix for one kind of attempt. */
    attempts: (kind: string) => `${prefix}portal:attempts:${kind}`,
  };
}

// KEYS: the login key. ARGV: the reservation's value, the credential's value.
const COMPLETE_SIGN_UP = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1`;

// KEYS: the login key. ARGV: the new password hash. Only a credential (not a reservation) changes.
const REPLACE_PASSWORD = `
local value = redis.call('GET', KEYS[1])
if not value then return 0 end
local ok, credential = pcall(cjson.decode, value)
if not ok or type(credential) ~= 'table' or type(credential.passwordHash) ~= 'string' then return 0 end
credential.passwordHash = ARGV[1]
redis.call('SET', KEYS[1], cjson.encode(credential))
return 1`;

/** The index of an account's sessions outlives any session (12 h at most), refreshed by each. */
const SESSION_INDEX_TTL_MS = 24 * 3_600_000;

// KEYS: the login key. ARGV: the reservation's value.
const RELEASE_EMAIL = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`;

/** The portal's state in Redis, shared by every gateway replica. Uses the gateway's command connection; never closes it. */
export class RedisPortalStore implements PortalStore {
  private readonly keys: ReturnType<typeof portalRedisKeys>;

  constructor(
    private readonly redis: RedisClient,
    prefix = DEFAULT_PORTAL_REDIS_PREFIX,
  ) {
    this.keys = portalRedisKeys(prefix);
  }

  async reserveEmail(email: string, reservation: string, ttlMs: number): Promise<boolean> {
    const set = await this.run(() => this.redis.set(this.keys.login(email), reservationValue(reservation), 'PX', ttlMs, 'NX'));
    return set === 'OK';
  }

  async completeSignUp(email: string, reservation: string, credential: Credential): Promise<boolean> {
    const done = await this.run(() => this.redis.eval(COMPLETE_SIGN_UP, 1, this.keys.login(email), reservationValue(reservation), JSON.stringify(credential)));
    return done === 1;
  }

  async releaseEmail(email: string, reservation: string): Promise<void> {
    await this.run(() => this.redis.eval(RELEASE_EMAIL, 1, this.keys.login(email), reservationValue(reservation)));
  }

  async findCredential(email: string): Promise<Credential | null> {
    const value = await this.run(() => this.redis.get(this.keys.login(email)));
    return value === null ? null : toCredential(value);
  }

  async replacePassword(email: string, passwordHash: string): Promise<boolean> {
    return (await this.run(() => this.redis.eval(REPLACE_PASSWORD, 1, this.keys.login(email), passwordHash))) === 1;
  }

  async saveSession(id: string, session: SessionRecord, ttlMs: number): Promise<void> {
    const index = this.keys.sessionsOf(session.accountId);
    await this.run(() =>
      Promise.all([
        this.redis.set(this.keys.session(id), JSON.stringify(session), 'PX', Math.max(1, Math.ceil(ttlMs))),
        this.redis.sadd(index, id),
        this.redis.pexpire(index, SESSION_INDEX_TTL_MS),
      ]),
    );
  }

  async findSession(id: string): Promise<SessionRecord | null> {
    const value = await this.run(() => this.redis.get(this.keys.session(id)));
    return value === null ? null : toSession(value);
  }

  async deleteSession(id: string): Promise<void> {
    await this.run(() => this.redis.del(this.keys.session(id)));
  }

  async deleteSessionsOf(accountId: string): Promise<void> {
    const index = this.keys.sessionsOf(accountId);
    const ids = await this.run(() => this.redis.smembers(index));
    // One key per command: on a Cluster the keys need share no slot.
    if (ids.length === 0) return;
    // One key per DEL: on a Cluster the keys need share no slot. Only these ids leave the index: a session started meanwhile stays in it.
    await this.run(() => Promise.all([...ids.map((id) => this.redis.del(this.keys.session(id))), this.redis.srem(index, ...ids)]));
  }


  async close(): Promise<void> {
    // The connection belongs to the gateway.
  }

  private run<T>(command: () => Promise<T>): Promise<T> {
    return storeCall(command(), STORE_DEADLINE_MS, 'portal store');
  }
}

const reservationValue = (reservation: string) => JSON.stringify({ reservation });

/** Values are read back from a store others can write to: anything malformed is treated as absent. */
function toCredential(value: string): Credential | null {
  const parsed = parseObject(value);
  if (!parsed || typeof parsed.accountId !== 'string' || typeof parsed.passwordHash !== 'string') return null;
  return { accountId: parsed.accountId, passwordHash: parsed.passwordHash, createdAt: typeof parsed.createdAt === 'string' ? parsed.createdAt : '' };
}

function toSession(value: string): SessionRecord | null {
  const parsed = parseObject(value);
  if (!parsed) return null;
  const { accountId, csrfToken, createdAtMs, lastSeenAtMs } = parsed;
  if (typeof accountId !== 'string' || typeof csrfToken !== 'string' || typeof createdAtMs !== 'number' || typeof lastSeenAtMs !== 'number') return null;
  return { accountId, csrfToken, createdAtMs, lastSeenAtMs };
}

function parseObject(value: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
