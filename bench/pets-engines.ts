/**
 * The pets-service alone on SQLite and on PostgreSQL: list and create throughput with autocannon,
 * one process and then two replicas on one PostgreSQL database, and how many server connections
 * each replica ends up holding. A measurement for docs/scaling.md, not a pass/fail target.
 *
 *   npm run build && node dist/bench/pets-engines.js
 *   BENCH_SECONDS=5 BENCH_CONNECTIONS=10 BENCH_ADMIN_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres
 *
 * The PostgreSQL server is reached as a superuser that may create (and then drops) a database of its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { signServiceToken } from '../shared/src/internal-token';

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ADMIN_URL = process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const root = path.resolve(__dirname, '..', '..');
const secret = 'bench-secret-'.padEnd(40, 'x');
const token = signServiceToken('bench', secret);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function startPets(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(root, 'dist/pets-service/src/main.js')], {
    cwd: root,
    env: { PATH: process.env.PATH, LOG_LEVEL: 'error', INTERNAL_JWT_SECRET: secret, PETS_PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i += 1) {
    try {
      await fetch(`${url}/healthz`);
      return { child, url };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`${url} did not come up`);
}

const stop = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', () => resolve()), child.kill('SIGTERM'))));

/** Load spread over the replicas: autocannon runs one instance per URL, connections shared out. */
async function load(urls: string[], pathname: string, method: 'GET' | 'POST') {
  const body = method === 'POST' ? JSON.stringify({ name: 'bench', categoryId: 1 }) : undefined;
  const results = await Promise.all(
    urls.map((url) =>
      autocannon({
        url: `${url}${pathname}`,
        method,
        body,
        connections: Math.max(1, Math.round(CONNECTIONS / urls.length)),
        duration: DURATION_S,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      }),
    ),
  );
  return {
    requestsPerSecond: Math.round(results.reduce((sum, r) => sum + r.requests.average, 0)),
    p99Ms: Math.max(...results.map((r) => r.latency.p99)),
    failed: results.reduce((sum, r) => sum + r.non2xx + r.errors, 0),
  };
}

async function measure(label: string, env: Record<string, string>, replicas: number, connectionsHeld?: () => Promise<number>) {
  const started = await Promise.all(Array.from({ length: replicas }, () => startPets(env)));
  const urls = started.map((s) => s.url);
  try {
    for (let i = 0; i < 1000; i += 1) {
      await fetch(`${urls[0]}/pets`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: `seed ${i}`, categoryId: 1 }) });
    }
    const list = await load(urls, '/pets?limit=20', 'GET');
    const create = await load(urls, '/pets', 'POST');
    const held = connectionsHeld ? await connectionsHeld() : undefined;
    return { label, replicas, list, create, ...(held === undefined ? {} : { serverConnectionsHeld: held }) };
  } finally {
    await Promise.all(started.map((s) => stop(s.child)));
  }
}

async function withAdmin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const report: unknown[] = [];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-pets-'));
  try {
    report.push(await measure('sqlite', { PETS_DB_PATH: path.join(dir, 'pets.db') }, 1));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const name = `bench_pets_${randomBytes(4).toString('hex')}`;
  await withAdmin((client) => client.query(`CREATE DATABASE ${name}`));
  try {
    const url = new URL(ADMIN_URL);
    url.pathname = `/${name}`;
    const held = () =>
      withAdmin(async (client) => Number((await client.query("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'pets-service'", [name])).rows[0].n));
    for (const replicas of [1, 2]) {
      // A fresh schema for each run, so each starts from the same 1,000 pets.
      const admin = new Client({ connectionString: url.toString() });
      await admin.connect();
      await admin.query('DROP TABLE IF EXISTS pets, idempotency_records, schema_migrations');
      await admin.end();
      report.push(await measure('postgres', { DATABASE_URL: url.toString() }, replicas, held));
    }
  } finally {
    await withAdmin(async (client) => {
      await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
      await client.query(`DROP DATABASE IF EXISTS ${name}`);
    });
  }
  process.stdout.write(`${JSON.stringify({ seconds: DURATION_S, connections: CONNECTIONS, cpus: os.cpus().length, report }, null, 2)}\n`);
}

main().catch((error: Error) => {
  process.stderr.write(`bench failed: ${error.stack ?? error.message}\n`);
  process.exit(1);
});
