import Redis from 'ioredis';

/**
 * Counts the commands clients send to Redis, as opposed to those a Lua script runs inside Redis.
 * INFO commandstats counts both alike (an EVALSHA whose script calls GET, INCR and PEXPIRE counts 4),
 * so it cannot tell round trips; MONITOR marks script-internal commands as coming from `lua`. MONITOR
 * costs Redis work of its own, so it is attached only to separate counting runs whose CPU is not reported.
 */
export class RedisMonitor {
  /** Commands sent by clients, by name. */
  readonly sent: Record<string, number> = {};
  /** Commands run inside scripts, by name. */
  readonly inScripts: Record<string, number> = {};

  private constructor(private readonly connection: Redis) {
    connection.on('monitor', (_time: string, args: string[], source: string) => this.count(args, source));
  }

  /** Resolves once MONITOR is on: from then on every command reaches this connection. */
  static async start(port: number): Promise<RedisMonitor> {
    const template = new Redis({ host: '127.0.0.1', port, lazyConnect: true });
    try {
      return new RedisMonitor(await template.monitor());
    } finally {
      template.disconnect();
    }
  }

  private count(args: string[], source: string): void {
    const command = args[0]?.toLowerCase();
    if (!command) return;
    const counts = source === 'lua' ? this.inScripts : this.sent;
    counts[command] = (counts[command] ?? 0) + 1;
  }

  stop(): void {
    this.connection.disconnect();
  }
}
