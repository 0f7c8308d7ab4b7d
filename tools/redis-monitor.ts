import { randomUUID } from 'node:crypto';
import net from 'node:net';

/** Commands by name: those a client sent, and those the scripts it ran ran inside Redis. */
export interface CommandCounts {
  sent: Record<string, number>;
  inScripts: Record<string, number>;
}

/**
 * Counts the commands clients send to Redis, as opposed to those a Lua script runs inside Redis.
 * INFO commandstats counts both alike (an EVALSHA whose script calls GET, INCR and PEXPIRE counts 4),
 * and counts every client alike, so it cannot tell round trips, nor a request's commands from a job
 * queue's polls; MONITOR names the client of each command and marks script-internal commands as
 * coming from `lua`, right after the EVAL or EVALSHA that ran them. MONITOR costs Redis work of its
 * own, so the bench attaches it only to separate counting runs whose CPU is not reported.
 *
 * A plain socket, not ioredis: ioredis enters its monitoring mode in a promise callback after
 * MONITOR's `+OK`, so a monitored command that arrives in the same TCP read as the `+OK` is taken
 * for the answer to a command nobody sent ("Command queue state error"), an 'error' event that
 * crashed the bench once two gateways' background work was on the server.
 */
export class RedisMonitor {
  /** What each client sent, by its address (`127.0.0.1:5000`), a script's commands counted for the client that ran it. */
  readonly byClient = new Map<string, CommandCounts>();
  private pending = '';
  /** The client of the last command sent: the one whose script runs the `lua` lines that follow. */
  private lastClient = '';
  private readonly markers = new Map<string, () => void>();

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

  /**
   * Resolves once every command Redis ran before this call has reached the monitor: `echo` sends a
   * marker through another connection (an ECHO of a fresh value), and Redis feeds its monitors in
   * the order it runs commands. Instead of a pause that a loaded machine may outlast.
   */
  async caughtUp(echo: (marker: string) => Promise<unknown>, withinMs = 10_000): Promise<void> {
    const marker = `monitor-marker-${randomUUID()}`;
    let timer: NodeJS.Timeout | undefined;
    const seen = new Promise<void>((resolve, reject) => {
      this.markers.set(marker, resolve);
      timer = setTimeout(() => reject(new Error(`the monitor did not see its marker within ${withinMs} ms`)), withinMs);
    });
    try {
      await echo(marker);
      await seen;
    } finally {
      clearTimeout(timer);
      this.markers.delete(marker);
    }
  }

  private read(chunk: string): void {
    const lines = (this.pending + chunk).split('\r\n');
    this.pending = lines.pop() ?? '';
    for (const line of lines) {
      const seen = monitorLine(line);
      if (!seen) continue;
      if (seen.command === 'echo') this.markers.get(/"([^"]*)"$/.exec(line)?.[1] ?? '')?.();
      if (!seen.inScript) this.lastClient = seen.client;
      let client = this.byClient.get(this.lastClient);
      if (!client) this.byClient.set(this.lastClient, (client = { sent: {}, inScripts: {} }));
      const ofClient = seen.inScript ? client.inScripts : client.sent;
      ofClient[seen.command] = (ofClient[seen.command] ?? 0) + 1;
    }
  }

  stop(): void {
    this.socket.destroy();
  }
}

/**
 * One line of MONITOR's output: `+1700000000.123456 [0 127.0.0.1:5000] "EVALSHA" "…"`, or `[1 lua]`
 * from a script; the command's name and the client's address (`lua` for a script's).
 */
export function monitorLine(line: string): { command: string; client: string; inScript: boolean } | undefined {
  const match = /^\+[\d.]+ \[\d+ ([^\]]+)\] "([^"\\]+)"/.exec(line);
  return match ? { command: match[2]!.toLowerCase(), client: match[1]!, inScript: match[1] === 'lua' } : undefined;
}

/** `CLIENT LIST`'s answer as each client's name by its address (`addr=`); unnamed clients have ''. */
export function clientNamesOf(clientList: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const line of clientList.split('\n')) {
    const addr = /(?:^| )addr=(\S+)/.exec(line)?.[1];
    if (addr) names.set(addr, /(?:^| )name=(\S*)/.exec(line)?.[1] ?? '');
  }
  return names;
}

/**
 * The counts of the clients whose name `include` accepts, added up; a client gone by the time of
 * the `CLIENT LIST` (no name known) counts as unnamed.
 */
export function countsOfClients(byClient: ReadonlyMap<string, CommandCounts>, names: ReadonlyMap<string, string>, include: (name: string) => boolean): CommandCounts {
  const total: CommandCounts = { sent: {}, inScripts: {} };
  for (const [address, counts] of byClient) {
    if (!include(names.get(address) ?? '')) continue;
    for (const part of ['sent', 'inScripts'] as const) {
      for (const [command, n] of Object.entries(counts[part])) total[part][command] = (total[part][command] ?? 0) + n;
    }
  }
  return total;
}
