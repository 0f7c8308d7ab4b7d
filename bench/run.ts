/**
 * `npm run bench`: throughput, latency and memory of the gateway against the pets-service
 * behind it, measured from a second process over loopback with autocannon.
 *
 * Runs the compiled services as real processes (in-process limiter unless REDIS_URL is set),
 * measures the pets-service directly (the baseline) and through the gateway, and checks the
 * targets below. Exit status 1 when a target is missed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { signServiceToken } from '../shared/src/internal-token';

const TARGETS = {
  /** The gateway's own cost: its throughput as a share of the pets-service's alone. */
  minThroughputShare: 0.35,
  maxGatewayP99Ms: 50,
  maxGatewayRssMiB: 250,
  /** Every request must be answered 200 (the quota is set far above the load). */
  maxNon2xx: 0,
};
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

const root = path.resolve(__dirname, '..', '..');
const secret = 'bench-secret-'.padEnd(40, 'x');
const adminToken = 'bench-admin-token-0123456789';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function start(script: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [path.join(root, 'dist', script)], {
    cwd: root,
    env: { PATH: process.env.PATH, LOG_LEVEL: 'error', INTERNAL_JWT_SECRET: secret, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function until(url: string): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`${url} did not come up`);
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kib / 102.4) / 10;
}

async function load(url: string, token: string): Promise<autocannon.Result> {
  return autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers: { authorization: `Bearer ${token}` } });
}

async function main(): Promise<void> {
  const [petsPort, gatewayPort, adminPort] = [await freePort(), await freePort(), await freePort()];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  const pets = start('pets-service/src/main.js', { PETS_PORT: String(petsPort), PETS_DB_PATH: path.join(dir, 'pets.db') });
  const gatewayEnv: Record<string, string> = {
    PORT: String(gatewayPort),
    ADMIN_PORT: String(adminPort),
    PETS_URL: `http://127.0.0.1:${petsPort}`,
    ADMIN_TOKEN: adminToken,
  };
  if (process.env.REDIS_URL) gatewayEnv.REDIS_URL = process.env.REDIS_URL;
  const gateway = start('gateway/src/main.js', gatewayEnv);
  try {
    await until(`http://127.0.0.1:${petsPort}/healthz`);
    await until(`http://127.0.0.1:${gatewayPort}/healthz`);

    const admin = (pathname: string, body: unknown) =>
      fetch(`http://127.0.0.1:${adminPort}${pathname}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<Record<string, string>>);
    const account = await admin('/admin/accounts', { name: 'bench', plan: 'enterprise', perMinute: 100_000_000, perDay: 1_000_000_000 });
    const { key } = await admin(`/admin/accounts/${account.id}/keys`, {});
    const serviceToken = signServiceToken('bench', secret);
    for (let i = 0; i < 50; i += 1) {
      await fetch(`http://127.0.0.1:${petsPort}/pets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${serviceToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `pet ${i}`, categoryId: 1 }),
      });
    }

    const direct = await load(`http://127.0.0.1:${petsPort}/pets?limit=20`, serviceToken);
    const viaGateway = await load(`http://127.0.0.1:${gatewayPort}/v1/pets?limit=20`, String(key));
    const gatewayRss = rssMiB(gateway.pid!);

    const report = {
      mode: process.env.REDIS_URL ? 'redis' : 'in-process',
      connections: CONNECTIONS,
      seconds: DURATION_S,
      direct: { requestsPerSecond: direct.requests.average, p50Ms: direct.latency.p50, p99Ms: direct.latency.p99 },
      gateway: {
        requestsPerSecond: viaGateway.requests.average,
        p50Ms: viaGateway.latency.p50,
        p99Ms: viaGateway.latency.p99,
        non2xx: viaGateway.non2xx + viaGateway.errors,
        rssMiB: gatewayRss,
      },
      throughputShare: Math.round((viaGateway.requests.average / direct.requests.average) * 100) / 100,
    };
    const missed = [
      report.throughputShare < TARGETS.minThroughputShare && `throughput share ${report.throughputShare} < ${TARGETS.minThroughputShare}`,
      report.gateway.p99Ms > TARGETS.maxGatewayP99Ms && `gateway p99 ${report.gateway.p99Ms} ms > ${TARGETS.maxGatewayP99Ms} ms`,
      gatewayRss > TARGETS.maxGatewayRssMiB && `gateway RSS ${gatewayRss} MiB > ${TARGETS.maxGatewayRssMiB} MiB`,
      report.gateway.non2xx > TARGETS.maxNon2xx && `${report.gateway.non2xx} failed requests`,
    ].filter(Boolean);
    process.stdout.write(`${JSON.stringify({ ...report, targets: TARGETS, missed }, null, 2)}\n`);
    process.exitCode = missed.length > 0 ? 1 : 0;
  } finally {
    gateway.kill('SIGTERM');
    pets.kill('SIGTERM');
  }
}

main().catch((error: Error) => {
  process.stderr.write(`bench failed: ${error.stack ?? error.message}\n`);
  process.exit(1);
});
