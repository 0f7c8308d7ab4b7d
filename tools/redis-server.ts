import { spawn, type ChildProcess } from 'node:child_process';
import Redis from 'ioredis';
import { freePort, waitFor } from './ports';
import { clientNamesOf, countsOfClients, RedisMonitor, type CommandCounts } from './redis-monitor';

/** The name (CLIENT SETNAME) of a test's own inspecting connection (`TestRedis.client`). */
export const INSPECTION_CONNECTION_NAME = 'test:inspection';

/** What `watchCommands` saw: the commands of the clients a name filter accepts, added up. */
export interface WatchedCommands {
  of(include: (clientName: string) => boolean): CommandCounts;
}

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
  private connection: Redis | undefined;

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

  /** On a free port; should another process take that port first, on another (a port of the caller's own is kept). */
  static async start(options: TestRedisOptions = {}): Promise<TestRedis> {
    for (let attempt = 1; ; attempt += 1) {
      const redis = new TestRedis(options.port ?? (await freePort()), options.args ?? []);
      try {
        await redis.start();
        return redis;
      } catch (error) {
        if (!(error instanceof PortTakenError) || options.port !== undefined || attempt >= 5) throw error;
      }
    }
  }

  /**
   * Starts the server and waits until it answers. It must be this server that answers: between
   * `freePort()` and the bind, another process (a suite running beside this one) may take the port,
   * and its redis-server would answer the ping. A test would then share, and flush, another suite's
   * Redis (seen in a CI pair: keys vanishing between two requests). So the answer's `process_id`
   * must be the child's; a child that exits first saying its address is in use: `PortTakenError`.
   */
  async start(): Promise<void> {
    if (this.process) return;
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning', ...this.args],
      // What it says (its log on stdout, warnings only; a bad argument on stderr) is kept, short,
      // for the error should it not start.
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let log = '';
    const keep = (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-2_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.process = child;
    let exited = false;
    child.once('exit', () => {
      exited = true;
      if (this.process === child) this.process = undefined;
    });
    const connection = inspectingClient(this.port);
    this.connection = connection;
    // PING first: ioredis sends INFO (a command allowed while Redis loads) before its ready check
    // is done, and any other command of the test would then be refused (no offline queue).
    await waitFor(async () => exited || ((await connection.ping()) === 'PONG' && (await serverProcessId(connection)) === child.pid), 10_000, `redis-server on port ${this.port}`);
    if (exited) {
      // Wait for the client's end: one disconnected while it still connects leaves a timer behind.
      const ended = new Promise((resolve) => connection.once('end', resolve));
      connection.disconnect();
      await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
      if (this.connection === connection) this.connection = undefined;
      if (/address already in use/i.test(log)) throw new PortTakenError(`redis-server could not listen on port ${this.port}: another process holds it`);
      throw new Error(`redis-server on port ${this.port} exited as it started: ${log.trim() || '(nothing logged)'}`);
    }
  }

  async stop(): Promise<void> {
    const child = this.process;
    this.connection?.disconnect();
    this.connection = undefined;
    if (!child) return;
    this.process = undefined;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  }

  /**
   * A connection of the test's own while the server runs, so a test inspects Redis without the
   * code under test: ioredis's commands, or `client.call(...)` for any other (CLIENT PAUSE, CLUSTER …).
   */
  get client(): Redis {
    if (!this.connection) throw new Error(`redis-server on port ${this.port} is not running`);
    return this.connection;
  }

  /**
   * Waits until every acknowledged write is in the AOF file (the kernel's, so a SIGKILL cannot lose
   * it). With `appendfsync everysec` Redis may hold its AOF buffer for up to 2 s while an fsync is
   * slow, and answers the client meanwhile: a kill right after a write can lose it (seen on CI).
   */
  async aofWritten(): Promise<void> {
    await waitFor(async () => /\baof_buffer_length:0\r/.test(await this.client.info('persistence')), 5_000, `the AOF of redis-server on port ${this.port} written`);
  }

  async ping(): Promise<boolean> {
    return (await this.client.ping()) === 'PONG';
  }

  async flushAll(): Promise<void> {
    await this.client.flushall();
  }

  /** Calls of each Redis command since the last `CONFIG RESETSTAT`. */
  async commandStats(): Promise<Record<string, number>> {
    const info = await this.client.info('commandstats');
    const stats: Record<string, number> = {};
    for (const match of info.matchAll(/cmdstat_([a-z|_-]+):calls=(\d+)/g)) stats[match[1]!] = Number(match[2]);
    return stats;
  }

  async resetStats(): Promise<void> {
    await this.client.config('RESETSTAT');
  }

  /**
   * Counts the commands each client sends from now (MONITOR), by the client's name: unlike
   * `commandStats`, it tells one connection's commands (a gateway's request path) from another's
   * (its job queues' polls, which run on their own timers). `stop()` waits until Redis's feed has
   * caught up, ends it, and names the clients (`CLIENT LIST`).
   */
  async watchCommands(): Promise<{ stop(): Promise<WatchedCommands> }> {
    const monitor = await RedisMonitor.start(this.port);
    return {
      stop: async () => {
        try {
          await monitor.caughtUp((marker) => this.client.echo(marker));
        } finally {
          monitor.stop();
        }
        const names = clientNamesOf(String(await this.client.client('LIST')));
        return { of: (include) => countsOfClients(monitor.byClient, names, include) };
      },
    };
  }
}

/** A redis-server that could not bind its port: another process listens there. */
export class PortTakenError extends Error {}

/** The `process_id` of the redis-server a connection reaches. */
async function serverProcessId(client: Redis): Promise<number> {
  return Number(/\bprocess_id:(\d+)/.exec(await client.info('server'))?.[1]);
}

/**
 * Fails fast instead of waiting: no offline queue (a command while disconnected, e.g. while the
 * server starts or after a test stopped it, is refused at once) and a command timeout, as the
 * hand-written client it replaces had.
 */
function inspectingClient(port: number): Redis {
  const client = new Redis({ host: '127.0.0.1', port, connectionName: INSPECTION_CONNECTION_NAME, enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 2_000, retryStrategy: () => 20 });
  // Refused connections while the server starts are expected; a command's failure reaches its caller.
  client.on('error', () => undefined);
  return client;
}
