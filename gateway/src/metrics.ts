import type { RequestHandler } from 'express';
import { sendError, serviceUnavailable } from '../../shared/src/errors';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { LookupGateStats } from './accounts/lookup-gate';
import type { KeyCacheStats } from './accounts/principal-resolver';
import type { LimitDecision } from './limits/types';
import type { Replica, ReplicaSet } from './upstream/replicas';

/** The gateway's Prometheus metrics, in a registry of its own (served on the admin port at /metrics). */
export interface MetricsOptions {
  /** Read at every scrape, so the gauge cannot drift from the limiter's own state. */
  isDegraded: () => boolean;
  /** Where accounts and counters live: 'redis', 'redis-cluster' or 'in-process' (the `store` label of gateway_store_info). */
  storeKind?: string;
  /** Parts of the store (the Redis, or masters of a cluster) whose accounts are limited in-process now. */
  unavailableParts?: () => number;
  /** The pets-service replicas, for per-replica counts and availability. */
  replicas?: ReplicaSet;
  /** The key resolver's own counters, read at every scrape (nothing is added per request). */
  keyCacheStats?: () => KeyCacheStats;
  /** The look-up gate's counters, read at every scrape. */
  keyLookupStats?: () => LookupGateStats;
  defaultMetrics?: boolean;
  /** What a scrape answers (default: this registry's metrics); with GATEWAY_WORKERS, every worker's, summed by the primary. */
  scrape?: (registry: Registry) => Promise<string>;
}

const ATTEMPT_OUTCOMES = ['ok', 'connect', 'reset', 'timeout'] as const;

export function createMetrics({ isDegraded, storeKind = 'in-process', unavailableParts = () => 0, replicas, keyCacheStats, keyLookupStats, defaultMetrics = true, scrape = (registry) => registry.metrics() }: MetricsOptions) {
  const registry = new Registry();
  if (defaultMetrics) collectDefaultMetrics({ register: registry, prefix: 'gateway_' });

  const requests = new Counter({
    name: 'gateway_http_requests_total',
    help: 'Responses sent on the public port, by status code.',
    labelNames: ['method', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'gateway_http_request_duration_seconds',
    help: 'Time from request to the end of the response on the public port.',
    labelNames: ['method'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  const rateLimitDecisions = new Counter({
    name: 'gateway_rate_limit_decisions_total',
    help: 'Rate-limit decisions, by outcome and by whether the caller had a valid key.',
    labelNames: ['outcome', 'caller'] as const,
    registers: [registry],
  });
  // Bound once per outcome and caller (six children) instead of hashing the labels on every
  // request, and looked up by the two values (no key string made per request, issue 29).
  const decisionCounters = { key: new Map<LimitDecision['outcome'], Counter.Internal>(), anonymous: new Map<LimitDecision['outcome'], Counter.Internal>() };
  const decisionCounter = (outcome: LimitDecision['outcome'], caller: 'key' | 'anonymous'): Counter.Internal => {
    let counter = decisionCounters[caller].get(outcome);
    if (!counter) decisionCounters[caller].set(outcome, (counter = rateLimitDecisions.labels(outcome, caller)));
    return counter;
  };
  new Gauge({
    name: 'gateway_rate_limiter_degraded',
    help: '1 while Redis is unavailable and limits are enforced per replica in process, else 0.',
    registers: [registry],
    // With several workers (GATEWAY_WORKERS), the sum of the workers' series is served: any worker degraded is 1.
    aggregator: 'max',
    collect() {
      this.set(isDegraded() ? 1 : 0);
    },
  });
  if (keyCacheStats) registerKeyCacheMetrics(registry, keyCacheStats);
  if (keyLookupStats) registerKeyLookupMetrics(registry, keyLookupStats);
  new Gauge({
    name: 'gateway_store_info',
    help: 'Always 1; the store label says where accounts, keys and rate-limit counters live (redis, redis-cluster, in-process).',
    labelNames: ['store'] as const,
    registers: [registry],
    aggregator: 'first',
    collect() {
      this.set({ store: storeKind }, 1);
    },
  });
  new Gauge({
    name: 'gateway_rate_limiter_unavailable_parts',
    help: 'Parts of the Redis store (the server, or masters of a cluster) whose accounts are limited in-process now.',
    registers: [registry],
    aggregator: 'max',
    collect() {
      this.set(unavailableParts());
    },
  });
  const upstreamAttempts = new Counter({
    name: 'gateway_upstream_attempts_total',
    help: 'Requests sent to each pets-service replica, by outcome: ok (it answered), connect (refused or unreachable), reset (dropped), timeout.',
    labelNames: ['replica', 'outcome'] as const,
    registers: [registry],
  });
  // Bound once: a label lookup per request would hash the label values every time.
  const attemptCounters = new Map<string, Record<(typeof ATTEMPT_OUTCOMES)[number], Counter.Internal>>();
  for (const replica of replicas?.replicas ?? []) {
    attemptCounters.set(replica.url, Object.fromEntries(ATTEMPT_OUTCOMES.map((outcome) => [outcome, upstreamAttempts.labels(replica.url, outcome)])) as never);
  }
  new Gauge({
    name: 'gateway_upstream_replica_available',
    help: '1 while a pets-service replica gets requests, 0 while it is left out after failures (passive health checking).',
    labelNames: ['replica'] as const,
    registers: [registry],
    // 0 as soon as any worker leaves the replica out.
    aggregator: 'min',
    collect() {
      for (const replica of replicas?.replicas ?? []) this.set({ replica: replica.url }, replicas!.isAvailable(replica) ? 1 : 0);
    },
  });

  // Label children bound once per method and status (Node's parser admits a fixed set of methods,
  // so these stay small): a labelled call hashes its label values on every request.
  // Looked up by method, then by the status as a number: no key string made per request (issue 29).
  const durationOf = new Map<string, Histogram.Internal<'method'>>();
  const requestsOf = new Map<string, Map<number, Counter.Internal>>();
  /** One response sent (not one abandoned): its method, status and time since `started` (`performance.now()`); the access log's listener calls it. */
  const observeResponse = (method: string, status: number, started: number): void => {
    let timer = durationOf.get(method);
    if (!timer) durationOf.set(method, (timer = duration.labels(method)));
    timer.observe((performance.now() - started) / 1000);
    let byStatus = requestsOf.get(method);
    if (!byStatus) requestsOf.set(method, (byStatus = new Map()));
    let counter = byStatus.get(status);
    if (!counter) byStatus.set(status, (counter = requests.labels(method, String(status))));
    counter.inc();
  };
  return {
    registry,
    observeResponse,
    recordDecision: (outcome: LimitDecision['outcome'], caller: 'key' | 'anonymous') => decisionCounter(outcome, caller).inc(),
    recordUpstreamAttempt: (replica: Replica, outcome: (typeof ATTEMPT_OUTCOMES)[number]) => attemptCounters.get(replica.url)?.[outcome].inc(),
    handler: (async (_req, res) => {
      let text: string;
      try {
        text = await scrape(registry);
      } catch (error) {
        sendError(res, serviceUnavailable(`The metrics could not be gathered: ${error instanceof Error ? error.message : String(error)}; retry shortly.`));
        return;
      }
      res.setHeader('Content-Type', registry.contentType);
      res.send(text);
    }) as RequestHandler,
  };
}

/**
 * The key caches, copied from the resolver's counters at scrape time: `reset` then `inc` sets a
 * counter to the resolver's running total (which only grows), so the series stay true counters.
 */
function registerKeyCacheMetrics(registry: Registry, read: () => KeyCacheStats): void {
  new Counter({
    name: 'gateway_key_cache_lookups_total',
    help: 'Requests with a well-formed API key, by how the key caches answered: hit (a valid key), unknown_hit (a key known to be unknown or revoked), miss (a store lookup was needed).',
    labelNames: ['result'] as const,
    registers: [registry],
    collect() {
      const stats = read();
      this.reset();
      this.inc({ result: 'hit' }, stats.hits);
      this.inc({ result: 'unknown_hit' }, stats.unknownHits);
      this.inc({ result: 'miss' }, stats.misses);
    },
  });
  new Counter({
    name: 'gateway_key_cache_stale_served_total',
    help: 'Key lookups answered from an expired cache entry because the account store failed.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(read().staleServed);
    },
  });
  new Counter({
    name: 'gateway_key_cache_evictions_total',
    help: 'Entries pushed out of a full key cache (valid: least recently used valid keys; unknown: unknown and revoked keys).',
    labelNames: ['cache'] as const,
    registers: [registry],
    collect() {
      const { evictions } = read();
      this.reset();
      this.inc({ cache: 'valid' }, evictions.valid);
      this.inc({ cache: 'unknown' }, evictions.unknown);
    },
  });
  new Gauge({
    name: 'gateway_key_cache_entries',
    help: 'Entries in each key cache.',
    labelNames: ['cache'] as const,
    registers: [registry],
    collect() {
      const { entries } = read();
      this.set({ cache: 'valid' }, entries.valid);
      this.set({ cache: 'unknown' }, entries.unknown);
    },
  });
}

/** The look-up gate, copied at scrape time like the key caches. */
function registerKeyLookupMetrics(registry: Registry, read: () => LookupGateStats): void {
  new Counter({
    name: 'gateway_key_lookup_admissions_total',
    help: 'Store look-ups of keys the caches did not know, by admission: immediate (within the client\'s look-up budget), queued (waited in the replica\'s look-up queue), refused (the queue was full: 503).',
    labelNames: ['admission'] as const,
    registers: [registry],
    collect() {
      const stats = read();
      this.reset();
      this.inc({ admission: 'immediate' }, stats.immediate);
      this.inc({ admission: 'queued' }, stats.queued);
      this.inc({ admission: 'refused' }, stats.refused);
    },
  });
  new Gauge({
    name: 'gateway_key_lookups_waiting',
    help: "Look-ups waiting in the replica's look-up queue now.",
    registers: [registry],
    collect() {
      this.set(read().waiting);
    },
  });
}

export type GatewayMetrics = ReturnType<typeof createMetrics>;
