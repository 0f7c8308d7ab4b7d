import type { RedisClient } from '../redis';
import { storeCall } from '../store-errors';
import { NEW_PROFILE, type EmailLinkPurpose, type EmailLinkRecord, type EmailProfile, type PortalEmailStore } from './email-store';

const STORE_DEADLINE_MS = 500;

// KEYS: the link's key. ARGV: the digest. The value when its digest matches (then deleted), else nil.
const TAKE_LINK = `
local value = redis.call('GET', KEYS[1])
if not value then return nil end
local ok, link = pcall(cjson.decode, value)
if not ok or type(link) ~= 'table' or link.digest ~= ARGV[1] then return nil end
redis.call('DEL', KEYS[1])
return value`;

/** The portal's email state in Redis, under the portal's prefix (one hash tag on a Cluster). Uses the gateway's connection; never closes it. */
export class RedisPortalEmailStore implements PortalEmailStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  /** string: JSON EmailLinkRecord, expiring with the link. */
  private linkKey(purpose: EmailLinkPurpose, accountId: string): string {
    return `${this.prefix}portal:email-link:${purpose}:${accountId}`;
  }

  /** hash: emailVerifiedAt ('' for null), quotaEmails ('1' or '0'). */
  private profileKey(accountId: string): string {
    return `${this.prefix}portal:email-profile:${accountId}`;
  }

  async saveLink(purpose: EmailLinkPurpose, accountId: string, record: EmailLinkRecord, ttlMs: number): Promise<void> {
    await this.run(this.redis.set(this.linkKey(purpose, accountId), JSON.stringify(record), 'PX', Math.max(1, Math.ceil(ttlMs))));
  }

  async takeLink(purpose: EmailLinkPurpose, accountId: string, digest: string): Promise<EmailLinkRecord | null> {
    const value = (await this.run(this.redis.eval(TAKE_LINK, 1, this.linkKey(purpose, accountId), digest))) as string | null;
    if (typeof value !== 'string') return null;
    const parsed = JSON.parse(value) as { digest?: unknown; email?: unknown };
    return typeof parsed.email === 'string' ? { digest, email: parsed.email } : null;
  }

  async findProfile(accountId: string): Promise<EmailProfile | null> {
    const fields = await this.run(this.redis.hgetall(this.profileKey(accountId)));
    if (fields.quotaEmails === undefined && fields.emailVerifiedAt === undefined) return null;
    return {
      emailVerifiedAt: fields.emailVerifiedAt ? fields.emailVerifiedAt : null,
      quotaEmails: fields.quotaEmails === undefined ? NEW_PROFILE.quotaEmails : fields.quotaEmails === '1',
    };
  }

  async updateProfile(accountId: string, patch: Partial<EmailProfile>): Promise<void> {
    const key = this.profileKey(accountId);
    // Each field on its own (HSET), so a verification and a change of the quota switch never undo each other;
    // the defaults only where nothing is stored yet (HSETNX).
    const multi = this.redis.multi();
    multi.hsetnx(key, 'emailVerifiedAt', NEW_PROFILE.emailVerifiedAt ?? '');
    multi.hsetnx(key, 'quotaEmails', NEW_PROFILE.quotaEmails ? '1' : '0');
    if (patch.emailVerifiedAt !== undefined) multi.hset(key, 'emailVerifiedAt', patch.emailVerifiedAt ?? '');
    if (patch.quotaEmails !== undefined) multi.hset(key, 'quotaEmails', patch.quotaEmails ? '1' : '0');
    await this.run(multi.exec());
  }

  async close(): Promise<void> {
    // The connection belongs to the gateway.
  }

  private run<T>(work: Promise<T>): Promise<T> {
    return storeCall(work, STORE_DEADLINE_MS, 'portal email store');
  }
}
