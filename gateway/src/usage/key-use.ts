import type { KeyUseRecords } from '../accounts/account-store';
import { BackgroundFlush } from './background-flush';

export interface KeyUseRecorderOptions {
  store: KeyUseRecords;
  /** How often uses go to the store (default 1 s): the resolution of `lastUsedAt` seen from other replicas. */
  flushIntervalMs?: number;
  /** Keys remembered between two flushes at most; uses of further keys wait for the next interval. */
  maxPending?: number;
  onFlushError?: (error: unknown) => void;
}

/**
 * When each API key was last used, without a store round trip on the request path: the rate-limit
 * stage notes every use here (a Map write), and the uses go to the store in the background. This
 * replica's own unflushed uses are merged into what it reads, so it never shows an older time than
 * it has seen; other replicas' uses show after their next flush.
 */
export class KeyUseRecorder {
  private pending = new Map<string, number>();
  private readonly store: KeyUseRecorderOptions['store'];
  private readonly maxPending: number;
  private readonly flusher: BackgroundFlush;

  constructor({ store, flushIntervalMs = 1_000, maxPending = 100_000, onFlushError = () => undefined }: KeyUseRecorderOptions) {
    this.store = store;
    this.maxPending = maxPending;
    this.flusher = new BackgroundFlush(() => this.flushPending(), flushIntervalMs, onFlushError);
  }

  note(keyId: string, atMs: number): void {
    if (this.pending.size >= this.maxPending && !this.pending.has(keyId)) return;
    if (atMs > (this.pending.get(keyId) ?? 0)) this.pending.set(keyId, atMs);
  }

  async lastUsed(keyIds: readonly string[]): Promise<Map<string, number>> {
    const stored = await this.store.keysLastUsed(keyIds);
    for (const keyId of keyIds) {
      const mine = this.pending.get(keyId);
      if (mine !== undefined && mine > (stored.get(keyId) ?? 0)) stored.set(keyId, mine);
    }
    return stored;
  }

  /** Sends what was noted since the last flush (tests and shutdown; otherwise the timer does). */
  flush(): Promise<void> {
    return this.flusher.run();
  }

  close(): Promise<void> {
    return this.flusher.close();
  }

  private async flushPending(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.store.recordKeyUse(batch);
    } catch (error) {
      // Kept for the next attempt; the store keeps the latest time anyway, so nothing is lost or reordered.
      for (const [keyId, at] of batch) this.note(keyId, at);
      throw error;
    }
  }
}
