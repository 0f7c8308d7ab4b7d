import { createConnection, type Socket } from 'node:net';

/**
 * Counts the commands clients send to Redis, as opposed to those a Lua script runs inside Redis.
 * INFO commandstats counts both alike (an EVALSHA whose script calls GET, INCR and PEXPIRE counts 4),
 * so it cannot tell round trips; MONITOR marks script-internal commands `[0 lua]`. MONITOR costs
 * Redis work of its own, so it is attached only to separate counting runs whose CPU is not reported.
 */
export class RedisMonitor {
  /** Commands sent by clients, by name. */
  readonly sent: Record<string, number> = {};
  /** Commands run inside scripts, by name. */
  readonly inScripts: Record<string, number> = {};
  private buffer = '';
  private onOk: (() => void) | undefined;

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.read(chunk));
  }

  static start(port: number): Promise<RedisMonitor> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(port, '127.0.0.1');
      socket.once('error', reject);
      socket.once('connect', () => {
        const monitor = new RedisMonitor(socket);
        // Resolved on +OK: from then on every command reaches this connection.
        monitor.onOk = () => resolve(monitor);
        socket.write('MONITOR\r\n');
      });
    });
  }

  private read(chunk: string): void {
    const text = this.buffer + chunk;
    let start = 0;
    for (let end = text.indexOf('\r\n'); end >= 0; end = text.indexOf('\r\n', start)) {
      this.line(text.slice(start, end));
      start = end + 2;
    }
    this.buffer = text.slice(start);
  }

  private line(line: string): void {
    if (line === '+OK') {
      this.onOk?.();
      return;
    }
    // +1700000000.123456 [0 127.0.0.1:51234] "evalsha" "…" …   or   +… [0 lua] "get" "…"
    const match = /^\+\d+\.\d+ \[\d+ ([^\]]+)\] "([^"]+)"/.exec(line);
    if (!match) return;
    const command = match[2]!.toLowerCase();
    const counts = match[1] === 'lua' ? this.inScripts : this.sent;
    counts[command] = (counts[command] ?? 0) + 1;
  }

  stop(): void {
    this.socket.destroy();
  }
}
