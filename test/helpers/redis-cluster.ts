import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Redis } from 'ioredis';
import { freePort, waitFor } from './ports';
import { TestRedis } from './redis-server';

const run = promisify(execFile);

/** One master as `CLUSTER NODES` describes it. */
interface MasterInfo {
  port: number;
  ranges: Array<[number, number]>;
}

/**
 * A real Redis Cluster owned by one test file: three masters (no replicas) on free ports, each in
 * a temp dir of its own with AOF on, so a master killed with `node.stop()` (SIGKILL) and started
 * again with `node.start()` comes back on the same port and dir with its slots and its data.
 *
 * `cluster-require-full-coverage no` lets the other masters serve their slots while one is down,
 * which is how the gateway must be deployed for its per-slot outage policy (see ADR 0007).
 * Creating one takes a few seconds: share it across a test file.
 */
export class TestRedisCluster {
  private constructor(
    readonly nodes: TestRedis[],
    private readonly dirs: string[],
  ) {}

  static async start(masters = 3): Promise<TestRedisCluster> {
    const nodes: TestRedis[] = [];
    const dirs: string[] = [];
    try {
      for (let i = 0; i < masters; i += 1) {
        const dir = mkdtempSync(path.join(os.tmpdir(), 'redis-cluster-node-'));
        dirs.push(dir);
        const [port, busPort] = [await freePort(), await freePort()];
        nodes.push(
          await TestRedis.start({
            port,
            args: [
              '--cluster-enabled', 'yes',
              '--cluster-config-file', 'nodes.conf',
              '--cluster-port', String(busPort),
              '--cluster-node-timeout', '1000',
              '--cluster-require-full-coverage', 'no',
              '--dir', dir,
              '--appendonly', 'yes',
              '--appendfsync', 'everysec',
            ],
          }),
        );
      }
      await run('redis-cli', ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '0', '--cluster-yes'], { timeout: 20_000 });
      const cluster = new TestRedisCluster(nodes, dirs);
      await cluster.waitUntilOk();
      return cluster;
    } catch (error) {
      for (const node of nodes) await node.stop();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** `REDIS_CLUSTER_NODES` for this cluster. */
  get seeds(): string {
    return this.nodes.map((node) => `127.0.0.1:${node.port}`).join(',');
  }

  /** The seed nodes as ioredis's `Cluster` takes them. */
  get addresses(): Array<{ host: string; port: number }> {
    return this.nodes.map((node) => ({ host: '127.0.0.1', port: node.port }));
  }

  async flushAll(): Promise<void> {
    for (const node of this.nodes) await node.flushAll();
  }

  /** Waits until every running master says `cluster_state:ok` and sees every other master connected. */
  async waitUntilOk(timeoutMs = 15_000): Promise<void> {
    await waitFor(
      async () => {
        for (const node of this.nodes) {
          const info = await node.client.cluster('INFO');
          if (!info.includes('cluster_state:ok')) return false;
          const nodes = String(await node.client.cluster('NODES'));
          if (/fail|disconnected|handshake/.test(nodes)) return false;
        }
        return true;
      },
      timeoutMs,
      'cluster_state:ok on every node',
    );
  }

  async slotOf(key: string): Promise<number> {
    return this.ask((client) => client.cluster('KEYSLOT', key));
  }

  /** The master that serves `key` (asked of any running node). */
  async nodeForKey(key: string): Promise<TestRedis> {
    const slot = await this.slotOf(key);
    const owner = (await this.masters()).find((master) => master.ranges.some(([from, to]) => slot >= from && slot <= to));
    const node = this.nodes.find((n) => n.port === owner?.port);
    if (!node) throw new Error(`no master serves slot ${slot}`);
    return node;
  }

  /** INFO commandstats summed over the masters (calls per command since `resetStats`). */
  async commandStats(): Promise<Record<string, number>> {
    const total: Record<string, number> = {};
    for (const node of this.nodes) {
      for (const [name, calls] of Object.entries(await node.commandStats())) total[name] = (total[name] ?? 0) + calls;
    }
    return total;
  }

  async resetStats(): Promise<void> {
    for (const node of this.nodes) await node.resetStats();
  }

  async stop(): Promise<void> {
    for (const node of this.nodes) await node.stop();
    for (const dir of this.dirs) rmSync(dir, { recursive: true, force: true });
  }

  /** A question answered by the first node that is up (one may have been stopped by the test). */
  private async ask<T>(question: (client: Redis) => Promise<T>): Promise<T> {
    let lastError: unknown;
    for (const node of this.nodes) {
      try {
        return await question(node.client);
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  }

  private async masters(): Promise<MasterInfo[]> {
    const text = String(await this.ask((client) => client.cluster('NODES')));
    const masters: MasterInfo[] = [];
    for (const line of text.split('\n')) {
      const fields = line.trim().split(' ');
      if (!fields[2]?.includes('master')) continue;
      const port = Number(/:(\d+)@/.exec(fields[1] ?? '')?.[1]);
      const ranges = fields.slice(8).filter((f) => /^\d/.test(f)).map((range): [number, number] => {
        const [from, to = from] = range.split('-');
        return [Number(from), Number(to)];
      });
      masters.push({ port, ranges });
    }
    return masters;
  }
}
