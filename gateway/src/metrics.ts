import type { RequestHandler } from 'express';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { KeyCacheStats } from './accounts/principal-resolver';
import type { LimitDecision } from './limits/types';

/** The gateway's Prometheus metrics, in a registry of its own (served on the admin port at /metrics). */
export interface MetricsOptions {
  /** Read at every scrape, so the gauge cannot drift from the limiter's own state. */
  isDegraded: () => boolean;
  /** The key resolver's own counters, read at every scrape (nothing is added per request). */
  keyCacheStats?: () => KeyCacheStats;
  defaultMetrics?: boolean;
}

export function createMetrics({ isDegraded, keyCacheStats, defaultMetrics = true }: MetricsOptions) {
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
  new Gauge({
    name: 'gateway_rate_limiter_degraded',
    help: '1 while Redis is unavailable and limits are enforced per replica in process, else 0.',
    registers: [registry],
    collect() {
      this.set(isDegraded() ? 1 : 0);
    },
  });
  if (keyCacheStats) registerKeyCacheMetrics(registry, keyCacheStats);
  const upstreamErrors = new Counter({
    name: 'gateway_upstream_errors_total',
    help: 'Requests the pets-service did not answer, by kind.',
    labelNames: ['kind'] as const,
    registers: [registry],
  });

  const observeRequests: RequestHandler = (req, res, next) => {
    const stop = duration.startTimer({ method: req.method });
    res.once('finish', () => {
      stop();
      requests.inc({ method: req.method, status: String(res.statusCode) });
    });
    next();
  };

  return {
    registry,
    observeRequests,
    recordDecision: (outcome: LimitDecision['outcome'], caller: 'key' | 'anonymous') => rateLimitDecisions.inc({ outcome, caller }),
    recordUpstreamError: (kind: 'bad_gateway' | 'gateway_timeout') => upstreamErrors.inc({ kind }),
    handler: (async (_req, res) => {
      res.setHeader('Content-Type', registry.contentType);
      res.send(await registry.metrics());
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

export type GatewayMetrics = ReturnType<typeof createMetrics>;
