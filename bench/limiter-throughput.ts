/**
 * The Redis limiter's own throughput: accepted `consumeKey` calls per second (one EVALSHA each)
 * against a single Redis (`REDIS_URL`) or a Redis Cluster (`REDIS_CLUSTER_NODES`), from
 * BENCH_WORKERS worker threads, each with its own connection(s) and BENCH_CONCURRENCY calls in
 * flight, over BENCH_ACCOUNTS accounts (spread over the cluster's slots by their hash tags).
 *
 *   npm run build && REDIS_URL=redis://127.0.0.1:6379 node dist/bench/limiter-throughput.js
 *   npm run build && REDIS_CLUSTER_NODES=127.0.0.1:7000,127.0.0.1:7001 node dist/bench/limiter-throughput.js
 *
 * Measured figures and how they were taken: docs/scaling.md ("Redis and Redis Cluster").
 * The run writes counters into the Redis it is given (`rl:{bench-…}` keys, expiring within 35 days).
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import pino from 'pino';
import { loadGatewayConfig, redisTargetOf } from '../gateway/src/config';
import { createLimiter } from '../gateway/src/limits';
import { connectTarget, type RedisTarget } from '../gateway/src/redis';

interface WorkerInput {
  target: RedisTarget;
  seconds: number;
  concurrency: number;
  accounts: number;
  worker: number;
}

interface WorkerResult {
  accepted: number;
  other: number;
  failures: number;
  degraded: boolean;
  /** Call latencies in microseconds, sampled. */
  latenciesUs: number[];
}

const numberFrom = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

async function main(): Promise<void> {
  const config = loadGatewayConfig({ ...process.env, INTERNAL_JWT_SECRET: process.env.INTERNAL_JWT_SECRET ?? 'bench-secret-'.padEnd(40, 'x') });
  const target = redisTargetOf(config);
  if (!target) throw new Error('set REDIS_URL or REDIS_CLUSTER_NODES');
  const workers = numberFrom('BENCH_WORKERS', 2);
  const input = { target, seconds: numberFrom('BENCH_SECONDS', 5), concurrency: numberFrom('BENCH_CONCURRENCY', 64), accounts: numberFrom('BENCH_ACCOUNTS', 10_000) };
  const results = await Promise.all(
    Array.from(
      { length: workers },
      (_, worker) =>
        new Promise<WorkerResult>((resolve, reject) => {
          const thread = new Worker(__filename, { workerData: { ...input, worker } satisfies WorkerInput });
          thread.once('message', resolve);
          thread.once('error', reject);
        }),
    ),
  );
  const latencies = results.flatMap((r) => r.latenciesUs).sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0) / 1000;
  const accepted = results.reduce((sum, r) => sum + r.accepted, 0);
  process.stdout.write(
    `${JSON.stringify(
      {
        store: 'url' in target ? 'redis' : `redis-cluster (${target.clusterNodes.length} seed nodes)`,
        workers,
        concurrencyPerWorker: input.concurrency,
        accounts: input.accounts,
        seconds: input.seconds,
        acceptedPerSecond: Math.round(accepted / input.seconds),
        notAccepted: results.reduce((sum, r) => sum + r.other, 0),
        failures: results.reduce((sum, r) => sum + r.failures, 0),
        fellBackToInProcess: results.some((r) => r.degraded),
        latencyMs: { p50: at(0.5), p99: at(0.99), max: at(1) },
      },
      null,
      2,
    )}\n`,
  );
}

async function work({ target, seconds, concurrency, accounts, worker }: WorkerInput): Promise<WorkerResult> {
  const redis = await connectTarget(target);
  const limiter = createLimiter({ redis, logger: pino({ level: 'silent' }), ban: { threshold: null, seconds: 900 } });
  const quotas = { perMinute: 1_000_000_000, perDay: 1_000_000_000 };
  const result: WorkerResult = { accepted: 0, other: 0, failures: 0, degraded: false, latenciesUs: [] };
  const run = `${Date.now().toString(36)}-${worker}`;
  // Warm-up: every node connection loads the script once (EVAL), outside the measurement.
  for (let i = 0; i < 64; i++) await limiter.consumeKey({ accountId: `bench-${run}-warm-${i}`, keyId: 'k', quotas });
  const deadline = performance.now() + seconds * 1000;
  let calls = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const accountId = `bench-${run}-${Math.floor(Math.random() * accounts)}`;
        const started = performance.now();
        try {
          const decision = await limiter.consumeKey({ accountId, keyId: 'k', quotas });
          if (decision.outcome === 'allowed') result.accepted++;
          else result.other++;
        } catch {
          result.failures++;
        }
        // One call in 16 is timed: enough for percentiles without the array dominating the worker.
        if ((calls++ & 15) === 0) result.latenciesUs.push((performance.now() - started) * 1000);
        result.degraded ||= limiter.degraded;
      }
    }),
  );
  await limiter.close();
  redis.disconnect();
  return result;
}

if (isMainThread) {
  main().catch((error: Error) => {
    process.stderr.write(`bench failed: ${error.stack ?? error.message}\n`);
    process.exit(1);
  });
} else {
  work(workerData as WorkerInput).then((result) => parentPort?.postMessage(result));
}
