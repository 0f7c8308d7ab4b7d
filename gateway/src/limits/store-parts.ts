import calculateSlot from 'cluster-key-slot';
import { Cluster } from 'ioredis';
import type { RedisClient } from '../redis';
import { withDeadline } from '../store-errors';

/**
 * A part of the Redis store that fails on its own: the whole server on a single Redis, one master
 * (the owner of a set of hash slots) on a cluster. The failover limiter sends to the in-process
 * limiter only the calls whose keys live in a failed part, and probes each failed part until it
 * answers again.
 */
export interface StorePart {
  readonly id: string;
  /** Resolves when this part answers again, in time; rejects otherwise. */
  probe(): Promise<unknown>;
}

export interface StoreLayout {
  /** 'redis' or 'redis-cluster': the limiter's `mode` while every part answers. */
  readonly kind: 'redis' | 'redis-cluster';
  /** The part that holds `key`. */
  partOf(key: string): StorePart;
  /** What the limiter's `mode` says while `unavailable` parts are answered in-process. */
  degradedMode(unavailable: number): string;
}

export function storeLayout(client: RedisClient, timeoutMs: number): StoreLayout {
  return client instanceof Cluster ? clusterLayout(client, timeoutMs) : singleLayout(client, timeoutMs);
}

/** One server: one part; a PING that answers late counts as down, so a slow Redis does not get the traffic back. */
function singleLayout(client: RedisClient, timeoutMs: number): StoreLayout {
  const whole: StorePart = { id: 'redis', probe: () => withDeadline(client.ping(), timeoutMs, 'redis ping') };
  return {
    kind: 'redis',
    partOf: () => whole,
    degradedMode: () => 'in-process (redis unavailable)',
  };
}

/**
 * A cluster: the part of a key is the master ioredis routes its slot to, so one dead master costs
 * one failed call, after which its accounts are answered in-process at once. When a replica is
 * promoted, ioredis's refreshed slot map sends those slots to the new master, a part nobody
 * marked down: they return to Redis without waiting for the probe. The probe reads a key of the
 * part (EXISTS, routed like the request that failed), so it follows the slot wherever it now lives.
 */
function clusterLayout(client: Cluster, timeoutMs: number): StoreLayout {
  return {
    kind: 'redis-cluster',
    partOf: (key) => {
      // Before the first slot map (cluster not reached yet) every key is in one unknown part.
      const owner = client.slots[calculateSlot(key)]?.[0] ?? 'cluster';
      return { id: owner, probe: () => withDeadline(client.exists(key), timeoutMs, `redis cluster node ${owner}`) };
    },
    degradedMode: (unavailable) => `redis-cluster (in-process for the accounts of ${unavailable} unreachable master${unavailable === 1 ? '' : 's'})`,
  };
}
