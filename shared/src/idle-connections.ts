import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { SlotCollection } from './in-flight';

/**
 * Closes a server's keep-alive connections once they have been idle too long, by looking at them
 * once a second, instead of Node's timer per response (issue 29, ADR 0042).
 *
 * With `server.keepAliveTimeout` set, Node arms a socket timer as each response finishes and
 * clears it when the next request arrives: a new `Timeout` and a bound function per request, 5–8 %
 * of what a 429 costs the gateway; with this sweep in its place a 429 costs 2–10 % less (`bench/gc.ts`
 * against the variant `node-keep-alive-timer`, docs/performance.md). Here a request costs
 * nothing: a connection is followed from its `connection` to its `close`, and a sweep every
 * `SWEEP_EVERY_MS` closes each one that has had no response in flight and read no byte for
 * `idleLimitMs`. A connection is therefore closed between `idleLimitMs` and `idleLimitMs +
 * SWEEP_EVERY_MS` after its last response, never before.
 *
 * A connection that has not sent a byte yet is not this sweep's: the headers timeout closes it, as
 * before (Node's keep-alive timer started only after a first response too).
 */
export class IdleConnections {
  private readonly connections = new SlotCollection<Socket>(CONNECTION_SLOT);
  private readonly forget: (this: Socket) => void;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly idleLimitMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    const connections = this.connections;
    // One listener for every connection, not a closure per connection.
    this.forget = function (this: Socket) {
      connections.delete(this);
    };
  }

  /** Follows every connection `server` accepts, and sweeps them once a second while it listens. */
  watch(server: Server): this {
    server.on('connection', (socket: Socket) => this.add(socket));
    server.on('listening', () => this.start());
    server.on('close', () => this.stop());
    if (server.listening) this.start();
    return this;
  }

  add(socket: Socket): void {
    this.connections.add(socket);
    socket.on('close', this.forget);
  }

  /** The connections followed now (those not closed yet). */
  get size(): number {
    return this.connections.size;
  }

  /** Closes every connection idle for `idleLimitMs` by now; marks the others' state for the next sweep. */
  sweep(): void {
    const now = this.now();
    for (const socket of this.connections.all() as Watched[]) {
      // A response in flight (however slow), or no request yet: not idle in the keep-alive sense.
      if (socket._httpMessage || socket.bytesRead === 0) {
        socket[IDLE_SINCE] = undefined;
      } else if (socket.bytesRead !== socket[READ_AT_LAST_SWEEP] || socket[IDLE_SINCE] === undefined) {
        // Bytes arrived (a request, or the start of one) since the last sweep: idle from now at the earliest.
        socket[READ_AT_LAST_SWEEP] = socket.bytesRead;
        socket[IDLE_SINCE] = now;
      } else if (now - socket[IDLE_SINCE] >= this.idleLimitMs) {
        socket.destroy();
      }
    }
  }

  private start(): void {
    this.timer ??= setInterval(() => this.sweep(), SWEEP_EVERY_MS).unref();
  }

  private stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** How often the connections are looked at: the most a connection outlives its idle limit. */
export const SWEEP_EVERY_MS = 1_000;

/**
 * How much longer than the advertised `Keep-Alive: timeout=` a connection is kept: a client that
 * reuses a connection just before the advertised time must not meet a close on its way (Node's
 * own margin, `keepAliveTimeoutBuffer`, 1 s, is the same).
 */
export const KEEP_ALIVE_MARGIN_MS = 1_000;

const CONNECTION_SLOT = Symbol('connection slot');
const READ_AT_LAST_SWEEP = Symbol('bytes read at the last sweep');
const IDLE_SINCE = Symbol('idle since');

/** A server's socket as Node keeps it: `_httpMessage` is the response it is writing, if any (what `closeIdleConnections` reads too). */
type Watched = Socket & { _httpMessage?: unknown; [READ_AT_LAST_SWEEP]?: number; [IDLE_SINCE]?: number };
