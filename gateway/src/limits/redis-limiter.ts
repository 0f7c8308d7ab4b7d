import { RateLimiterRedis } from 'rate-limiter-flexible';
import { DEFAULT_REDIS_TIMEOUT_MS, type RedisClient } from '../redis';
import { AnonymousLimiter } from './anonymous';
import { LruMap } from '../accounts/lru-map';
import type { PrimaryParts } from './failover-limiter';
import { StoreUnavailableError, withDeadline } from '../store-errors';
import { RedisKeyNames } from './redis-key-names';
import { defineScripts, parseConsumeReply, parseUsageReply, type ConsumeReply, type ScriptClient } from './script';
import { storeLayout, type StoreLayout } from './store-parts';
import {
  HISTORY_DAYS_KEPT,
  type BanPolicy,
  type DailyCount,
  type DecisionNowOrLater,
  type KeyRef,
  type KeySubject,
  type LimitDecision,
  type Limiter,
  type Quotas,
  type WindowName,
  type WindowState,
} from './types';
import { accountWindows, banThreshold, countRejection, exhausted, lastUtcDays, refusingWindow, sameQuotas, utcDate, utcDay } from './windows';

export interface RedisLimiterOptions {
  /** A single Redis or a Redis Cluster. */
  redis: RedisClient;
  ban: BanPolicy;
  /** Longest a request waits on Redis before the store counts as failed (`REDIS_TIMEOUT_MS`). */
  commandTimeoutMs?: number;
}

/** An account known to be refused until `untilMs`, under these quotas. */
interface AccountBlock {
  untilMs: number;
  binding: WindowName;
  /** The windows as every refusal reports them (the binding one spent), made once when the block is. */
  windows: WindowState[];
  quotas: Quotas;
}

/** What this replica knows about a key's rejections and ban, continued from the script's last answer. */
interface KeyLocal {
  rejections: number;
  rejectionsResetAtMs: number;
  bannedUntilMs: number;
  windows: WindowState[];
}

/** Prefix of every key this limiter writes (`rl:{accountId}:minute`…). */
const KEY_PREFIX = 'rl';
/** Bound of each local cache (blocked accounts, key rejections and bans). */
const LOCAL_CACHE_ENTRIES = 10_000;

/**
 * The Redis-backed limiter: one EVALSHA per counted request, none while the account is known to
 * be refused. Every store failure surfaces as an exception, never as a decision; the failover
 * limiter decides what to do with it. Its keys are named by `RedisKeyNames`: an account's all in
 * one cluster slot.
 */
export class RedisLimiter implements Limiter {
  readonly mode: string;
  readonly degraded = false;
  readonly unavailableParts = 0;
  /** Where each account's and each anonymous client's counters live (for the failover). */
  readonly parts: PrimaryParts;
  private readonly client: ScriptClient;
  private readonly layout: StoreLayout;
  private readonly names: RedisKeyNames;
  private readonly timeoutMs: number;
  private readonly blocked: LruMap<string, AccountBlock>;
  private readonly keys: LruMap<string, KeyLocal>;
  private readonly anonymous: AnonymousLimiter;
  private readonly ban: BanPolicy;

  constructor(options: RedisLimiterOptions) {
    this.client = defineScripts(options.redis);
    this.ban = options.ban;
    this.names = new RedisKeyNames(KEY_PREFIX);
    this.timeoutMs = options.commandTimeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS;
    this.layout = storeLayout(options.redis, this.timeoutMs);
    this.mode = this.layout.kind;
    this.parts = {
      ofAccount: (accountId) => this.layout.partOf(this.names.ofAccount(accountId, this.gatewayDay()).minute),
      // rate-limiter-flexible's key for this client (its prefix, a colon, the key it is given).
      ofAnonymous: (ip) => this.layout.partOf(`${this.names.anonymousPrefix}:${ip}`),
      degradedMode: (unavailable) => this.layout.degradedMode(unavailable),
    };
    this.blocked = new LruMap(LOCAL_CACHE_ENTRIES);
    this.keys = new LruMap(LOCAL_CACHE_ENTRIES);
    this.anonymous = new AnonymousLimiter(
      // inMemoryBlockOnConsumed: once Redis says an address has used its last unit, this process
      // refuses it locally until its window resets (rate-limiter-flexible's in-memory block), so an
      // address over its limit costs no Redis command, like an account over its quota.
      (points) =>
        new RateLimiterRedis({ storeClient: options.redis, keyPrefix: this.names.anonymousPrefix, points, duration: 60, rejectIfRedisNotReady: true, inMemoryBlockOnConsumed: points }),
      (work) => this.call(work, 'anonymous limit'),
    );
  }

  /** A refusal this replica already knows is answered at once, with no Redis command and no promise. */
  consumeKey(subject: KeySubject, now?: number): DecisionNowOrLater {
    return this.answerLocally(subject, now ?? Date.now()) ?? this.consumeInRedis(subject, now);
  }

  consumeAnonymous(ip: string, perMinute: number, now?: number): Promise<LimitDecision> {
    return this.anonymous.consume(ip, perMinute, now);
  }

  /** The one round trip of an accepted request: the script checks and counts atomically. */
  private async consumeInRedis(subject: KeySubject, now: number | undefined): Promise<LimitDecision> {
    const { accountId, quotas } = subject;
    const account = this.names.ofAccount(accountId, this.gatewayDay());
    const key = this.names.ofKey(subject);
    // `call` without its closure: this runs on every accepted request (issue 29).
    const unready = this.unready();
    if (unready) throw unready;
    const raw = await withDeadline(
      this.client.rlGatewayConsume(
        account.minute,
        account.dayBefore,
        account.today,
        account.dayAfter,
        key.ban,
        key.rejections,
        account.day,
        quotas.perMinute,
        quotas.perDay,
        banThreshold(this.ban, quotas),
        this.ban.seconds * 1000,
      ),
      this.timeoutMs,
      'rate limit script',
    );
    // TTLs come from Redis's clock; they are anchored on ours so headers agree with the gateway's Date.
    return this.remember(subject, parseConsumeReply(raw), now ?? Date.now());
  }

  async usage(accountId: string, quotas: Quotas, now?: number): Promise<WindowState[]> {
    const day = this.gatewayDay();
    const raw = await this.call(() => this.client.rlGatewayUsage(this.names.minute(accountId), ...this.names.daysAround(accountId, day), day), 'rate limit usage');
    const at = now ?? Date.now();
    const reply = parseUsageReply(raw);
    return accountWindows(quotas, { minuteCount: reply.minute, minuteResetAtMs: at + reply.minuteTtlMs, dayCount: reply.day, dayResetAtMs: dayEndMs(at, reply.dayTtlMs) });
  }

  /** One MGET of the account's day counters (one slot on a cluster); days are UTC dates on the gateway's clock. */
  async history(accountId: string, days: number, now?: number): Promise<DailyCount[]> {
    const wanted = lastUtcDays(now ?? Date.now(), Math.max(0, Math.min(days, HISTORY_DAYS_KEPT)));
    if (wanted.length === 0) return [];
    const counts = await this.call(() => this.client.mget(wanted.map((day) => this.names.day(accountId, day))), 'rate limit history');
    return wanted.map((day, i) => ({ day: utcDate(day), accepted: Number(counts[i] ?? 0) || 0 }));
  }

  async liftBan(key: KeyRef): Promise<void> {
    this.keys.delete(key.keyId);
    await this.call(() => this.client.del(this.names.ban(key), this.names.rejections(key)), 'lift ban');
  }

  /** Asks Redis (every replica's bans are there), anchored on our clock like the request path's answers. */
  async bannedUntil(key: KeyRef, now?: number): Promise<number | null> {
    const ttlMs = await this.call(() => this.client.pttl(this.names.ban(key)), 'ban status');
    return ttlMs > 0 ? (now ?? Date.now()) + ttlMs : null;
  }

  forgetAccount(accountId: string): void {
    this.blocked.delete(accountId);
  }

  /** Drops the local caches only: the Redis client belongs to whoever passed it in. */
  close(): Promise<void> {
    this.blocked.clear();
    this.keys.clear();
    return Promise.resolve();
  }

  private answerLocally({ accountId, keyId, quotas }: KeySubject, now: number): LimitDecision | Promise<LimitDecision> | undefined {
    const key = this.keys.get(keyId);
    if (key && key.bannedUntilMs > now) return { outcome: 'banned', windows: key.windows, bannedUntilMs: key.bannedUntilMs };

    const block = this.blocked.get(accountId);
    if (!block) return undefined;
    // Different quotas mean the block may no longer hold (a plan changed and nobody told us yet).
    if (block.untilMs <= now || !sameQuotas(block.quotas, quotas)) {
      this.blocked.delete(accountId);
      return undefined;
    }

    const windows = block.windows;
    const counted = countRejection(key, now, this.ban, quotas);
    if (counted.banned) return this.banFromHere({ accountId, keyId }, windows, now);

    // The 429 path (issue 29): a key refused before has its record updated where it is (`get` made
    // it the most recent already); a new record, and the rest-and-spread copy, cost Node 20 more.
    if (key) {
      key.rejections = counted.rejections;
      key.rejectionsResetAtMs = counted.rejectionsResetAtMs;
      key.bannedUntilMs = 0;
      key.windows = windows;
    } else {
      this.keys.set(keyId, { rejections: counted.rejections, rejectionsResetAtMs: counted.rejectionsResetAtMs, bannedUntilMs: 0, windows });
    }
    return { outcome: 'limited', windows, binding: block.binding, retryAfterMs: block.untilMs - now };
  }

  /** The threshold was reached on rejections only this replica saw: tell Redis, so every replica refuses the key. */
  private async banFromHere(key: KeyRef, windows: WindowState[], now: number): Promise<LimitDecision> {
    const banMs = this.ban.seconds * 1000;
    const bannedUntilMs = now + banMs;
    // Set before the await so concurrent rejections of the same key do not each send the ban.
    this.keys.set(key.keyId, { rejections: 0, rejectionsResetAtMs: 0, bannedUntilMs, windows });
    try {
      await this.call(() => this.client.rlGatewayBan(this.names.ban(key), this.names.rejections(key), banMs), 'ban');
    } catch (err) {
      this.keys.delete(key.keyId);
      throw err;
    }
    return { outcome: 'banned', windows, bannedUntilMs };
  }

  private remember({ accountId, keyId, quotas }: KeySubject, reply: ConsumeReply, now: number): LimitDecision {
    const windows = accountWindows(quotas, {
      minuteCount: reply.minute,
      minuteResetAtMs: now + reply.minuteTtlMs,
      dayCount: reply.day,
      dayResetAtMs: dayEndMs(now, reply.dayTtlMs),
    });

    if (reply.status === 'banned') {
      const bannedUntilMs = now + reply.banTtlMs;
      this.keys.set(keyId, { rejections: 0, rejectionsResetAtMs: 0, bannedUntilMs, windows });
      return { outcome: 'banned', windows, bannedUntilMs };
    }

    if (reply.status === 'limited') {
      const binding = reply.binding;
      const untilMs = binding === 'minute' ? now + reply.minuteTtlMs : dayEndMs(now, reply.dayTtlMs);
      this.blocked.set(accountId, { untilMs, binding, windows: exhausted(windows, binding), quotas });
      this.keys.set(keyId, { rejections: reply.rejections, rejectionsResetAtMs: now + reply.rejectionsTtlMs, bannedUntilMs: 0, windows });
      return { outcome: 'limited', windows, binding, retryAfterMs: untilMs - now };
    }

    // The request that used the last unit already tells us the next one will be refused.
    const full = refusingWindow(windows);
    if (full) this.blocked.set(accountId, { untilMs: full.resetAtMs, binding: full.name, windows: exhausted(windows, full.name), quotas });
    else this.blocked.delete(accountId);
    return { outcome: 'allowed', windows };
  }

  private call<T>(work: () => Promise<T>, what: string): Promise<T> {
    const unready = this.unready();
    if (unready) return Promise.reject(unready);
    return withDeadline(work(), this.timeoutMs, what);
  }

  /** The failure to report instead of sending: a client built with an offline queue would otherwise hold requests until it reconnects. */
  private unready(): StoreUnavailableError | undefined {
    return this.client.status === 'ready' ? undefined : new StoreUnavailableError(`redis is ${this.client.status}`);
  }

  /** The gateway's UTC day number, by its own clock: the script picks among the day before, this one and the next by Redis TIME. */
  private gatewayDay(): number {
    return utcDay(Date.now());
  }
}

/**
 * When the day window ends on our clock. It ends at 00:00 UTC, a whole second; Redis measured the
 * TTL with its clock before we read ours, so `now + ttl` lands a millisecond or so past it, which
 * the headers' rounding up would turn into 00:00:01. The nearest whole second removes that jitter
 * and still follows Redis's idea of which day it is.
 */
function dayEndMs(now: number, dayTtlMs: number): number {
  return Math.round((now + dayTtlMs) / 1000) * 1000;
}
