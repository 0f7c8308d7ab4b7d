import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { freePort, waitFor } from './ports';

export interface TestRedisOptions {
  /** Arguments after the defaults (later ones win in redis-server), e.g. `--appendonly yes --dir D`. */
  args?: string[];
  port?: number;
}

/**
 * A real redis-server owned by one test file, on a free port, with nothing on disk unless `args`
 * say otherwise. `stop()` (SIGKILL) and `start()` let a test simulate an outage or a crash on the
 * same address with the same arguments.
 */
export class TestRedis {
  private process: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    private readonly args: string[],
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** The redis-server's process id while it runs (the bench reads its CPU from /proc). */
  get pid(): number | undefined {
    return this.process?.pid;
  }

  static async start(options: TestRedisOptions = {}): Promise<TestRedis> {
    const redis = new TestRedis(options.port ?? (await freePort()), options.args ?? []);
    await redis.start();
    return redis;
  }

  async start(): Promise<void> {
    if (this.process) return;
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning', ...this.args],
      { stdio: 'ignore' },
    );
    this.process = child;
    child.once('exit', () => {
      if (this.process === child) this.process = undefined;
    });
    await waitFor(() => this.ping(), 10_000, `redis-server on port ${this.port}`);
  }

  async stop(): Promise<void> {
    const child = this.process;
    if (!child) return;
    this.process = undefined;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  }

  /**
   * Waits until every acknowledged write is in the AOF file (the kernel's, so a SIGKILL cannot lose
   * it). With `appendfsync everysec` Redis may hold its AOF buffer for up to 2 s while an fsync is
   * slow, and answers the client meanwhile: a kill right after a write can lose it (seen on CI).
   */
  async aofWritten(): Promise<void> {
    await waitFor(async () => /\baof_buffer_length:0\r/.test(await this.command('INFO', 'persistence')), 5_000, `the AOF of redis-server on port ${this.port} written`);
  }

  /** Raw RESP round trip, so tests can inspect Redis without the code under test. */
  command(...args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(this.port, '127.0.0.1');
      let reply = '';
      socket.setTimeout(2000, () => socket.destroy(new Error('redis command timed out')));
      socket.on('error', reject);
      socket.on('data', (chunk) => {
        reply += chunk.toString('utf8');
        if (isCompleteReply(reply)) {
          socket.end();
          resolve(reply);
        }
      });
      socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`);
    });
  }

  async ping(): Promise<boolean> {
    return (await this.command('PING')).startsWith('+PONG');
  }

  async flushAll(): Promise<void> {
    await this.command('FLUSHALL');
  }

  /** Calls of each Redis command since the last `CONFIG RESETSTAT`. */
  async commandStats(): Promise<Record<string, number>> {
    const info = await this.command('INFO', 'commandstats');
    const stats: Record<string, number> = {};
    for (const match of info.matchAll(/cmdstat_([a-z|_-]+):calls=(\d+)/g)) stats[match[1]!] = Number(match[2]);
    return stats;
  }

  async resetStats(): Promise<void> {
    await this.command('CONFIG', 'RESETSTAT');
  }
}

function isCompleteReply(reply: string): boolean {
  if (reply.startsWith('$')) {
    const header = reply.indexOf('\r\n');
    if (header < 0) return false;
    const length = Number(reply.slice(1, header));
    return length < 0 || Buffer.byteLength(reply) >= header + 2 + length + 2;
  }
  return reply.endsWith('\r\n');
}
