import { connect, type Socket } from 'node:net';

/**
 * HTTP/1.1 by hand, for what a client library would not do: announce a gigabyte, trickle a form,
 * wait for 100 Continue. Used by the tests of bodies that must never be read (issue 17, issue 24).
 */

export const MIB = 1024 * 1024;

export interface RawExchange {
  socket: Socket;
  /** Everything received so far, as Latin-1 text. */
  reply(): string;
  /** Resolves when the server has closed the connection (or it broke). */
  closed: Promise<void>;
  /** Resolves once the reply holds a whole head (through the blank line). */
  head(): Promise<string>;
}

/** Opens a connection to 127.0.0.1:`port` and sends `head` (a request head, blank line included). */
export function rawRequest(port: number, head: string): RawExchange {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  const waiting = new Set<() => void>();
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
    for (const wake of waiting) wake();
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  void closed.then(() => {
    for (const wake of waiting) wake();
  });
  socket.on('error', () => undefined); // a reset after the answer is how a refused upload may end
  socket.write(head);
  const readHead = () =>
    new Promise<string>((resolve) => {
      const check = () => {
        const end = text.indexOf('\r\n\r\n');
        if (end >= 0 || socket.destroyed) {
          waiting.delete(check);
          resolve(end >= 0 ? text.slice(0, end + 4) : text);
        }
      };
      waiting.add(check);
      check();
    });
  return { socket, reply: () => text, closed, head: readHead };
}

/** Writes zeros as fast as the connection takes them, until it closes or `cap` bytes are out; resolves with the bytes written. */
export function pour(socket: Socket, cap: number): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024);
  return new Promise((resolve) => {
    let written = 0;
    const done = () => resolve(written);
    socket.once('close', done);
    const more = () => {
      while (!socket.destroyed && written < cap) {
        written += chunk.length;
        if (!socket.write(chunk)) return socket.once('drain', more);
      }
      if (written >= cap) {
        socket.off('close', done);
        resolve(written);
      }
    };
    more();
  });
}

/** Sends `text` one byte every `everyMs` until it is all out or the connection closes; returns a stop function. */
export function dribble(socket: Socket, text: string, everyMs: number): () => void {
  let sent = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || sent >= text.length) return clearInterval(timer);
    socket.write(text[sent]!);
    sent += 1;
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
  return () => clearInterval(timer);
}

/** Resolves when `promise` does, or after `ms` at the latest (a deadline for a test, never a verdict by itself). */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
