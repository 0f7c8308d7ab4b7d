import type { RedisClient } from '../redis';
import { storeCall } from '../store-errors';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './event-types';
import { ADD_TO_ACCOUNT, DISABLE, NOTE_FAILURE, SAVE_DELIVERY } from './redis-webhook-scripts';
import { webhookRedisKeys } from './redis-webhook-keys';
import { DELIVERIES_KEPT, DELIVERY_STATUSES, isAfter, type DeliveryPage, type DeliveryPosition, type DeliveryRecord, type StoredEndpoint, type WebhookStore } from './store';

const STORE_DEADLINE_MS = 1_000;

/** The webhooks' state in Redis or a Redis Cluster, shared by every replica. Uses the gateway's command connection; never closes it. */
export class RedisWebhookStore implements WebhookStore {
  private readonly keys: ReturnType<typeof webhookRedisKeys>;
  private readonly deliveriesKept: number;

  constructor(
    private readonly redis: RedisClient,
    { namespace, deliveriesKept = DELIVERIES_KEPT }: { namespace?: string; deliveriesKept?: number } = {},
  ) {
    this.keys = webhookRedisKeys(namespace);
    this.deliveriesKept = deliveriesKept;
  }

  async addEndpoint(endpoint: StoredEndpoint, maxPerAccount: number): Promise<boolean> {
    const key = this.keys.endpoint(endpoint.id);
    await this.run(() => this.redis.hset(key, endpointFields(endpoint)));
    const added = await this.run(() => this.redis.eval(ADD_TO_ACCOUNT, 1, this.keys.accountEndpoints(endpoint.accountId), maxPerAccount, Date.parse(endpoint.createdAt), endpoint.id));
    if (added !== 1) await this.run(() => this.redis.del(key));
    return added === 1;
  }

  async listEndpoints(accountId: string): Promise<StoredEndpoint[]> {
    const ids = await this.run(() => this.redis.zrange(this.keys.accountEndpoints(accountId), 0, -1));
    const endpoints = await Promise.all(ids.map((id) => this.getEndpoint(id)));
    return endpoints.filter((endpoint): endpoint is StoredEndpoint => endpoint !== null);
  }

  async getEndpoint(id: string): Promise<StoredEndpoint | null> {
    return endpointOf(id, await this.run(() => this.redis.hgetall(this.keys.endpoint(id))));
  }

  async removeEndpoint(id: string): Promise<StoredEndpoint | null> {
    const endpoint = await this.getEndpoint(id);
    if (!endpoint) return null;
    await this.run(() => this.redis.zrem(this.keys.accountEndpoints(endpoint.accountId), id));
    const removed = await this.run(() => this.redis.del(this.keys.endpoint(id), this.keys.deliveries(id), this.keys.deliveryOrder(id)));
    return removed > 0 ? endpoint : null;
  }

  async noteFailure(id: string, atMs: number): Promise<number | null> {
    const since = await this.run(() => this.redis.eval(NOTE_FAILURE, 1, this.keys.endpoint(id), atMs));
    return since === null ? null : Number(since);
  }

  async noteSuccess(id: string): Promise<void> {
    await this.run(() => this.redis.hdel(this.keys.endpoint(id), 'failingSince'));
  }

  async disable(id: string, at: string): Promise<boolean> {
    return (await this.run(() => this.redis.eval(DISABLE, 1, this.keys.endpoint(id), at))) === 1;
  }

  async saveDelivery(endpointId: string, record: DeliveryRecord): Promise<void> {
    await this.writeDelivery(endpointId, record, false);
  }

  async startDelivery(endpointId: string, record: DeliveryRecord): Promise<boolean> {
    return this.writeDelivery(endpointId, record, true);
  }

  async getDelivery(endpointId: string, eventId: string): Promise<DeliveryRecord | null> {
    return deliveryOf(await this.run(() => this.redis.hget(this.keys.deliveries(endpointId), eventId)));
  }

  async listDeliveries(endpointId: string, { limit, after }: { limit: number; after?: DeliveryPosition }): Promise<DeliveryPage> {
    // At most `deliveriesKept` entries: read the order whole, newest first, and page in memory.
    const flat = await this.run(() => this.redis.zrevrange(this.keys.deliveryOrder(endpointId), 0, -1, 'WITHSCORES'));
    const positions: DeliveryPosition[] = [];
    for (let i = 0; i < flat.length; i += 2) positions.push({ eventId: flat[i]!, queuedAtMs: Number(flat[i + 1]) });
    const wanted = positions.filter((position) => !after || isAfter(position, after));
    const page = wanted.slice(0, limit);
    const values = page.length === 0 ? [] : await this.run(() => this.redis.hmget(this.keys.deliveries(endpointId), ...page.map(({ eventId }) => eventId)));
    const deliveries = values.map(deliveryOf).filter((record): record is DeliveryRecord => record !== null);
    const last = page[page.length - 1];
    return { deliveries, next: wanted.length > limit && last ? last : null };
  }

  async claimOnce(name: string, ttlMs: number): Promise<boolean> {
    return (await this.run(() => this.redis.set(this.keys.claim(name), '1', 'PX', ttlMs, 'NX'))) === 'OK';
  }

  private async writeDelivery(endpointId: string, record: DeliveryRecord, onlyIfAbsent: boolean): Promise<boolean> {
    const keys = [this.keys.endpoint(endpointId), this.keys.deliveries(endpointId), this.keys.deliveryOrder(endpointId)];
    const written = await this.run(() => this.redis.eval(SAVE_DELIVERY, 3, ...keys, record.eventId, JSON.stringify(record), record.queuedAtMs, this.deliveriesKept, onlyIfAbsent ? '1' : '0'));
    return written === 1;
  }

  private run<T>(command: () => Promise<T>): Promise<T> {
    return storeCall(command(), STORE_DEADLINE_MS, 'webhook store');
  }
}

function endpointFields(endpoint: StoredEndpoint): Record<string, string> {
  return {
    accountId: endpoint.accountId,
    url: endpoint.url,
    events: endpoint.events.join(','),
    secret: endpoint.secret,
    createdAt: endpoint.createdAt,
    ...(endpoint.disabledAt === null ? {} : { disabledAt: endpoint.disabledAt }),
    ...(endpoint.failingSince === null ? {} : { failingSince: String(endpoint.failingSince) }),
  };
}

function endpointOf(id: string, fields: Record<string, string>): StoredEndpoint | null {
  const { accountId, url, events, secret, createdAt, disabledAt, failingSince } = fields;
  if (!accountId || !url || events === undefined || !secret || !createdAt) return null;
  return {
    id,
    accountId,
    url,
    events: events.split(',').filter((type): type is WebhookEventType => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(type)),
    secret,
    createdAt,
    disabledAt: disabledAt ?? null,
    failingSince: failingSince === undefined ? null : Number(failingSince),
  };
}

function deliveryOf(raw: string | null): DeliveryRecord | null {
  if (raw === null) return null;
  try {
    const record = JSON.parse(raw) as DeliveryRecord;
    return (DELIVERY_STATUSES as readonly string[]).includes(record.status) ? record : null;
  } catch {
    return null;
  }
}
