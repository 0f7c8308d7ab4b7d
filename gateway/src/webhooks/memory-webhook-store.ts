import { DELIVERIES_KEPT, isAfter, newestFirst, type DeliveryPage, type DeliveryPosition, type DeliveryRecord, type StoredEndpoint, type WebhookStore } from './store';

/** The embedded default: everything in this process, lost on restart like the rest of its state. */
export class MemoryWebhookStore implements WebhookStore {
  private readonly endpoints = new Map<string, StoredEndpoint>();
  private readonly deliveries = new Map<string, Map<string, DeliveryRecord>>();
  private readonly claims = new Map<string, number>();

  constructor(
    private readonly deliveriesKept = DELIVERIES_KEPT,
    private readonly now: () => number = Date.now,
  ) {}

  async addEndpoint(endpoint: StoredEndpoint, maxPerAccount: number): Promise<boolean> {
    if ((await this.listEndpoints(endpoint.accountId)).length >= maxPerAccount) return false;
    this.endpoints.set(endpoint.id, copy(endpoint));
    this.deliveries.set(endpoint.id, new Map());
    return true;
  }

  async listEndpoints(accountId: string): Promise<StoredEndpoint[]> {
    return [...this.endpoints.values()].filter((endpoint) => endpoint.accountId === accountId).map(copy);
  }

  async getEndpoint(id: string): Promise<StoredEndpoint | null> {
    const endpoint = this.endpoints.get(id);
    return endpoint ? copy(endpoint) : null;
  }

  async removeEndpoint(id: string): Promise<StoredEndpoint | null> {
    const endpoint = this.endpoints.get(id);
    this.endpoints.delete(id);
    this.deliveries.delete(id);
    return endpoint ?? null;
  }

  async noteFailure(id: string, atMs: number): Promise<number | null> {
    const endpoint = this.endpoints.get(id);
    if (!endpoint) return null;
    endpoint.failingSince ??= atMs;
    return endpoint.failingSince;
  }

  async noteSuccess(id: string): Promise<void> {
    const endpoint = this.endpoints.get(id);
    if (endpoint) endpoint.failingSince = null;
  }

  async disable(id: string, at: string): Promise<boolean> {
    const endpoint = this.endpoints.get(id);
    if (!endpoint || endpoint.disabledAt !== null) return false;
    endpoint.disabledAt = at;
    return true;
  }

  async saveDelivery(endpointId: string, record: DeliveryRecord): Promise<void> {
    const records = this.deliveries.get(endpointId);
    if (!records) return;
    records.set(record.eventId, { ...record });
    if (records.size > this.deliveriesKept) {
      const oldest = [...records.values()].sort(newestFirst).slice(this.deliveriesKept);
      for (const { eventId } of oldest) records.delete(eventId);
    }
  }

  async startDelivery(endpointId: string, record: DeliveryRecord): Promise<boolean> {
    const records = this.deliveries.get(endpointId);
    if (!records || records.has(record.eventId)) return false;
    await this.saveDelivery(endpointId, record);
    return true;
  }

  async getDelivery(endpointId: string, eventId: string): Promise<DeliveryRecord | null> {
    const record = this.deliveries.get(endpointId)?.get(eventId);
    return record ? { ...record } : null;
  }

  async listDeliveries(endpointId: string, { limit, after }: { limit: number; after?: DeliveryPosition }): Promise<DeliveryPage> {
    const all = [...(this.deliveries.get(endpointId)?.values() ?? [])].sort(newestFirst).filter((record) => !after || isAfter(record, after));
    const deliveries = all.slice(0, limit).map((record) => ({ ...record }));
    const last = deliveries[deliveries.length - 1];
    return { deliveries, next: all.length > limit && last ? { queuedAtMs: last.queuedAtMs, eventId: last.eventId } : null };
  }

  async claimOnce(name: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const until = this.claims.get(name);
    if (until !== undefined && until > now) return false;
    this.claims.set(name, now + ttlMs);
    // Expired claims go as new ones come: the map stays as small as the claims alive.
    for (const [other, otherUntil] of this.claims) if (otherUntil <= now) this.claims.delete(other);
    return true;
  }
}

function copy(endpoint: StoredEndpoint): StoredEndpoint {
  return { ...endpoint, events: [...endpoint.events] };
}
