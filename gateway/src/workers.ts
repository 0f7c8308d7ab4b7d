import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { AggregatorRegistry, type Registry } from 'prom-client';

/**
 * `GATEWAY_WORKERS` > 1: the gateway as several processes (node:cluster) sharing both ports, for
 * machines with cores to spare. One process runs the gateway on one core; a worker per core
 * multiplies its throughput (not its cost per request). Workers share accounts, keys, limits,
 * sessions and the audit trail through Redis (the configuration refuses more than one worker
 * without it), exactly as replicas do; what each keeps in memory (key caches, blocked accounts) is
 * kept in step by the same change feed.
 *
 * The primary serves nothing itself: it starts the workers, replaces one that dies, sums their
 * metrics for `/metrics` (whichever worker is scraped asks it), and on SIGTERM/SIGINT has every
 * worker drain as a single gateway would, exiting when the last one has.
 */

const READY = 'gateway:worker-ready';
const METRICS_REQUEST = 'gateway:metrics-request';
const METRICS_ANSWER = 'gateway:metrics-answer';

interface MetricsRequest {
  type: typeof METRICS_REQUEST;
  id: number;
}
interface MetricsAnswer {
  type: typeof METRICS_ANSWER;
  id: number;
  text?: string;
  error?: string;
}

function isMessage<T extends { type: string }>(message: unknown, type: T['type']): message is T {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;
}

export interface PrimaryOptions {
  workers: number;
  logger: Logger;
  /** Variables every worker gets on top of the primary's environment (a generated admin token: one for all). */
  env: Record<string, string>;
  /** Once, when every worker is listening. */
  onReady: () => void;
  /** A stop that takes longer kills what is left and exits 1 (each worker drains within its own ~10 s). */
  stopLimitMs?: number;
  /** More deaths than this within a minute means the workers cannot run: stop, exit 1. */
  maxRestartsPerMinute?: number;
}

export function runPrimary({ workers, logger, env, onReady, stopLimitMs = 12_000, maxRestartsPerMinute = 10 }: PrimaryOptions): void {
  const aggregator = new AggregatorRegistry();
  const ready = new Set<number>();
  const restarts: number[] = [];
  let announced = false;
  let stopping = false;
  let exitCode = 0;

  const fork = (): Worker => cluster.fork(env);
  const alive = () => Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);

  const stop = (reason: string, code: number) => {
    exitCode = Math.max(exitCode, code);
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'gateway stopping: every worker finishes its requests in flight');
    for (const worker of alive()) worker.process.kill('SIGTERM');
    setTimeout(() => {
      logger.error(`gateway workers did not stop within ${stopLimitMs} ms; killing them`);
      for (const worker of alive()) worker.process.kill('SIGKILL');
      process.exit(1);
    }, stopLimitMs).unref();
    if (alive().length === 0) process.exit(exitCode);
  };

  cluster.on('message', (worker, message: unknown) => {
    if (isMessage<{ type: typeof READY }>(message, READY)) {
      ready.add(worker.id);
      if (!announced && ready.size >= workers) {
        announced = true;
        onReady();
      }
    } else if (isMessage<MetricsRequest>(message, METRICS_REQUEST)) {
      const answer = (fields: Partial<MetricsAnswer>) => {
        if (worker.isConnected()) worker.send({ type: METRICS_ANSWER, id: message.id, ...fields } satisfies MetricsAnswer);
      };
      aggregator.clusterMetrics().then(
        (text) => answer({ text }),
        (error: unknown) => answer({ error: error instanceof Error ? error.message : String(error) }),
      );
    }
  });

  cluster.on('exit', (worker, code, signal) => {
    const wasReady = ready.delete(worker.id);
    if (stopping) {
      if (code !== 0) exitCode = 1;
      if (alive().length === 0) process.exit(exitCode);
      return;
    }
    if (!wasReady) {
      // It could not start (a port taken, a setting the worker refused): another would fail alike.
      logger.error({ code, signal }, 'a gateway worker exited before it was ready; stopping');
      stop('a worker could not start', 1);
      return;
    }
    if (code === 0 && signal === null) {
      // A worker stopped on its own signal (someone signalled it alone): the others serve on.
      logger.warn({ worker: worker.process.pid }, 'a gateway worker stopped; the others serve on');
      if (alive().length === 0) process.exit(0);
      return;
    }
    const now = Date.now();
    restarts.push(now);
    while (restarts.length > 0 && restarts[0]! < now - 60_000) restarts.shift();
    if (restarts.length > maxRestartsPerMinute) {
      logger.error({ code, signal }, `gateway workers died ${restarts.length} times within a minute; stopping`);
      stop('workers keep dying', 1);
      return;
    }
    logger.error({ code, signal, worker: worker.process.pid }, 'a gateway worker died; starting another');
    fork();
  });

  process.on('SIGTERM', () => stop('SIGTERM', 0));
  process.on('SIGINT', () => stop('SIGINT', 0));
  for (let i = 0; i < workers; i += 1) fork();
}

/** In a worker: tells the primary this worker is listening on both ports. */
export function announceReady(): void {
  process.send?.({ type: READY });
}

/** In a worker: answers the primary's gathering of metrics with this registry (from the start, scraped or not). */
export function offerMetricsToPrimary(registry: Registry): void {
  AggregatorRegistry.setRegistries([registry]);
  new AggregatorRegistry(); // registers this worker's answer to the primary's gathering
}

/**
 * In a worker: what `/metrics` answers, every worker's series summed by the primary (counters and
 * histograms add up; each gauge says how it combines).
 */
export function scrapeThroughPrimary(timeoutMs = 6_000): () => Promise<string> {
  const pending = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  let nextId = 0;
  process.on('message', (message: unknown) => {
    if (!isMessage<MetricsAnswer>(message, METRICS_ANSWER)) return;
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    clearTimeout(waiting.timer);
    if (message.text !== undefined) waiting.resolve(message.text);
    else waiting.reject(new Error(message.error ?? 'no answer from the other workers'));
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`the workers' metrics did not arrive within ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, { resolve, reject, timer });
      process.send?.({ type: METRICS_REQUEST, id } satisfies MetricsRequest);
    });
}
