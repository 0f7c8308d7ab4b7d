/**
 * The bench's fourth yardstick (issue 29): `express-hop-redis.ts` with the round trip made on a bare
 * socket instead of ioredis. It answers "what would a limiter connection of our own save?", the
 * question the profiles left open (ioredis and the limiter: 54–60 µs of a gateway request, the
 * whole of the target's budget): the same EVALSHA with the same arguments, encoded per request into
 * one string, the batch of one event-loop turn written at once (as ioredis's auto-pipelining does),
 * the replies parsed into arrays of integers, a deadline kept by one timer for all commands, not
 * one per command. What such a connection would also need (reconnection, NOSCRIPT, Cluster
 * redirections, errors per command) is not here: this is the least it could cost, not a client.
 */
import http from 'node:http';
import net from 'node:net';
import express from 'express';
import { CONSUME_LUA } from '../gateway/src/limits/script';
import { REDIS_COMMAND_TIMEOUT_MS } from '../gateway/src/redis';
import { consumeArguments } from './round-trip-arguments';
import { hopProxy } from './express-hop-proxy';
import { PREFIX, serve } from './hop-settings';

type Reply = number | string | null | Error | Reply[];
type Waiter = { sentAt: number; done: (error: Error | undefined, reply?: Reply) => void };

/** `args` as one RESP command (an array of bulk strings). */
function encode(args: readonly (string | number)[]): string {
  let out = `*${args.length}\r\n`;
  for (const arg of args) {
    const text = String(arg);
    out += `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
  }
  return out;
}

/**
 * Reads RESP2 replies from a stream of chunks: complete replies are handed on in order, a reply
 * split across chunks waits for the rest.
 */
class ReplyReader {
  private buffer: Buffer = Buffer.alloc(0);
  private offset = 0;

  constructor(private readonly onReply: (reply: Reply) => void) {}

  push(chunk: Buffer): void {
    this.buffer = this.offset < this.buffer.length ? Buffer.concat([this.buffer.subarray(this.offset), chunk]) : chunk;
    this.offset = 0;
    for (;;) {
      const start = this.offset;
      const reply = this.read();
      if (reply === undefined) {
        this.offset = start;
        return;
      }
      this.onReply(reply);
    }
  }

  /** One reply from `offset`, or undefined (offset anywhere) when the buffer ends first. */
  private read(): Reply | undefined {
    const line = this.line();
    if (line === undefined) return undefined;
    const rest = line.slice(1);
    switch (line[0]) {
      case ':':
        return Number(rest);
      case '+':
        return rest;
      case '-':
        return new Error(rest);
      case '$': {
        const length = Number(rest);
        if (length < 0) return null;
        if (this.offset + length + 2 > this.buffer.length) return undefined;
        const text = this.buffer.toString('utf8', this.offset, this.offset + length);
        this.offset += length + 2;
        return text;
      }
      case '*': {
        const length = Number(rest);
        if (length < 0) return null;
        const items: Reply[] = [];
        for (let i = 0; i < length; i++) {
          const item = this.read();
          if (item === undefined) return undefined;
          items.push(item);
        }
        return items;
      }
      default:
        throw new Error(`not a RESP reply: ${line}`);
    }
  }

  private line(): string | undefined {
    const end = this.buffer.indexOf('\r\n', this.offset, 'latin1');
    if (end < 0) return undefined;
    const line = this.buffer.toString('latin1', this.offset, end);
    this.offset = end + 2;
    return line;
  }
}

/** One connection: commands in the order sent, their replies in the same order. */
class RespConnection {
  private readonly waiting: Waiter[] = [];
  private head = 0;
  private batch = '';
  private flushing = false;
  /** Set once the connection is gone: every command after fails with it. */
  private cut: Error | undefined;

  constructor(private readonly socket: net.Socket) {
    const reader = new ReplyReader((reply) => {
      const waiter = this.waiting[this.head++]!;
      if (this.head > 1024 && this.head * 2 > this.waiting.length) {
        this.waiting.splice(0, this.head);
        this.head = 0;
      }
      waiter.done(reply instanceof Error ? reply : undefined, reply);
    });
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => reader.push(chunk));
    // A connection cut (by the deadline below, or by Redis) fails what it still waits for and what
    // comes after, as ioredis without an offline queue does: left waiting, those requests hung (an
    // instruction count under valgrind, where a reply can take longer than the deadline, waited for
    // them forever). No reconnection: this is a yardstick, not a client. The error itself is
    // answered by 'close'.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.cut = new Error('the Redis connection closed');
      const waiting = this.waiting.slice(this.head);
      this.waiting.length = 0;
      this.head = 0;
      for (const waiter of waiting) waiter.done(this.cut);
    });
    // One timer for every command: the oldest one unanswered past the deadline fails the connection.
    setInterval(() => {
      const oldest = this.waiting[this.head];
      if (oldest && performance.now() - oldest.sentAt > REDIS_COMMAND_TIMEOUT_MS) socket.destroy(new Error('Redis did not answer in time'));
    }, 50).unref();
  }

  send(args: readonly (string | number)[]): Promise<Reply> {
    if (this.cut) return Promise.reject(this.cut);
    return new Promise((resolve, reject) => {
      this.waiting.push({ sentAt: performance.now(), done: (error, reply) => (error ? reject(error) : resolve(reply!)) });
      this.batch += encode(args);
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(this.flush);
      }
    });
  }

  private readonly flush = (): void => {
    this.flushing = false;
    const batch = this.batch;
    this.batch = '';
    this.socket.write(batch);
  };
}

async function connect(url: URL): Promise<RespConnection> {
  const socket = net.connect(Number(url.port || 6379), url.hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const connection = new RespConnection(socket);
  const database = url.pathname.slice(1);
  if (database) await connection.send(['SELECT', database]);
  return connection;
}

async function main(): Promise<void> {
  const redis = await connect(new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'));
  const sha = (await redis.send(['SCRIPT', 'LOAD', CONSUME_LUA])) as string;
  const args = ['EVALSHA', sha, 6, ...consumeArguments()];
  const app = express();
  app.use(
    PREFIX,
    (_req, _res, next) => {
      redis.send(args).then(() => next(), next);
    },
    hopProxy(),
  );
  serve(http.createServer(app));
}

void main();
