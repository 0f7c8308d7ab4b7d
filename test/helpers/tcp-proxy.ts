import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a real server, for tests of what a client does when that server
 * misbehaves at the network level: refuses connections, resets them, or stops answering.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private frozen = false;
  private answersHeld = false;
  private server: Server;

  private constructor(
    private readonly target: { host: string; port: number },
    readonly port: number,
    server: Server,
  ) {
    this.server = server;
  }

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy: TcpProxy = new TcpProxy(target, 0, createServer());
    await proxy.listen(0);
    return proxy;
  }

  /** A connection string whose host and port are this proxy's instead. */
  urlThrough(url: string): string {
    const through = new URL(url);
    through.hostname = '127.0.0.1';
    through.port = String(this.port);
    return through.toString();
  }

  /** Refuses new connections (the port is closed) and resets the open ones: a server that is gone. */
  async refuse(): Promise<void> {
    // close() waits for the open connections to end: reset them after asking, not before waiting.
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.reset();
    await closed;
  }

  /** Accepts connections again on the same port after `refuse()`. */
  async accept(): Promise<void> {
    this.server = createServer();
    await this.listen(this.port);
  }

  /** Resets every open connection (RST): a connection lost in the middle of its work. */
  reset(): void {
    for (const socket of this.sockets) socket.resetAndDestroy();
    this.sockets.clear();
  }

  /** Keeps connections open but passes no more bytes, new connections included: a server that stopped answering. */
  freeze(): void {
    this.frozen = true;
  }

  thaw(): void {
    this.frozen = false;
  }

  /**
   * Passes requests on but drops the server's answers (until `passAnswers`): the server does its
   * work and answers, and the answer is lost on the way, as when the server dies just after sending it.
   */
  holdAnswers(): void {
    this.answersHeld = true;
  }

  passAnswers(): void {
    this.answersHeld = false;
  }

  async stop(): Promise<void> {
    this.frozen = false;
    if (this.server.listening) await this.refuse();
    else this.reset();
  }

  private async listen(port: number): Promise<void> {
    this.server.on('connection', (client) => this.pipe(client));
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => resolve());
    });
    const address = this.server.address();
    (this as { port: number }).port = typeof address === 'object' && address ? address.port : port;
  }

  private pipe(client: Socket): void {
    const upstream = createConnection(this.target);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    // Bytes are dropped, not queued, while frozen: a server that stopped answering never answers late.
    client.on('data', (chunk) => this.frozen || upstream.write(chunk));
    upstream.on('data', (chunk) => this.frozen || this.answersHeld || client.write(chunk));
  }
}
