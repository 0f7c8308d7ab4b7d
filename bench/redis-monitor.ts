import net from 'node:net';

/**
 * Counts the commands clients send to Redis, as opposed to those a Lua script runs inside Redis.
 * INFO commandstats counts both alike (an EVALSHA whose script calls GET, INCR and PEXPIRE counts 4),
 * so it cannot tell round trips; MONITOR marks script-internal commands as coming from `lua`. MONITOR
 * costs Redis work of its own, so it is attached only to separate counting runs whose CPU is not reported.
 *
 * A plain socket, not ioredis: ioredis enters its monitoring mode in a promise callback after
 * MONITOR's `+OK`, so a monitored command that arrives in the same TCP read as the `+OK` is taken
 * for the answer to a command nobody sent ("Command queue state error"), an 'error' event that
 * crashed the bench once two gateways' background work was on the server.
 */
export class RedisMonitor {
  /** Commands sent by clients, by name. */
  readonly sent: Record<string, number> = {};
  /** Commands run inside scripts, by name. */
  readonly inScripts: Record<string, number> = {};
  private pending = '';

  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.read(chunk));
    // The bench stops the monitor by destroying it; a reset while Redis stops is nothing to report.
    socket.on('error', () => undefined);
  }

  /** Resolves once MONITOR is on (its `+OK` read): from then on every command reaches this connection. */
  static async start(port: number): Promise<RedisMonitor> {
    const socket = net.connect({ host: '127.0.0.1', port });
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.once('connect', () => resolve());
    });
    socket.write('MONITOR\r\n');
    const first = await new Promise<string>((resolve, reject) => {
      socket.once('error', reject);
      socket.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8')));
    });
    if (!first.startsWith('+OK\r\n')) {
      socket.destroy();
      throw new Error(`MONITOR was refused: ${first.slice(0, 200)}`);
    }
    socket.removeAllListeners('error');
    const monitor = new RedisMonitor(socket);
    monitor.read(first.slice('+OK\r\n'.length));
    return monitor;
  }

  private read(chunk: string): void {
    const lines = (this.pending + chunk).split('\r\n');
    this.pending = lines.pop() ?? '';
    for (const line of lines) {
      const seen = monitorLine(line);
      if (!seen) continue;
      const counts = seen.inScript ? this.inScripts : this.sent;
      counts[seen.command] = (counts[seen.command] ?? 0) + 1;
    }
  }

  stop(): void {
    this.socket.destroy();
  }
}

/** One line of MONITOR's output: `+1700000000.123456 [0 127.0.0.1:5000] "EVALSHA" "…"`, or `[1 lua]` from a script; the command's name. */
export function monitorLine(line: string): { command: string; inScript: boolean } | undefined {
  const match = /^\+[\d.]+ \[\d+ ([^\]]+)\] "([^"\\]+)"/.exec(line);
  return match ? { command: match[2]!.toLowerCase(), inScript: match[1] === 'lua' } : undefined;
}
