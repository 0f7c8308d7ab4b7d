import { fork, type ChildProcess } from 'node:child_process';
import { COMPILED } from './processes';

/** One measured run, as the bench asks the load generator for it. */
export interface LoadOrder {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  connections: number;
  seconds: number;
  /** Exactly this many requests instead of `seconds` (none left in flight when the run ends). */
  amount?: number;
  /** Requests per second over all connections; unset: as fast as the server answers. */
  overallRate?: number;
  /** Each request carries the next of these keys (the soak's many distinct keys). */
  rotateKeys?: string[];
  /** A header that gets a new random UUID on each request (`idempotency-key`: every create a new one). */
  uniqueHeader?: string;
  /** Keep every response's latency (warm-up runs need not). */
  recordLatencies: boolean;
}

export interface LoadOutcome {
  /** Responses received, whatever their status. */
  requests: number;
  seconds: number;
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  /** Each response's latency in ms (sub-millisecond resolution), when recorded. */
  latenciesMs: Float64Array;
}

type Reply = { ready: true } | { ok: true; outcome: LoadOutcome } | { ok: false; error: string };

/** The bench's side of the load generator process. */
export class LoadGenerator {
  private constructor(private readonly child: ChildProcess) {}

  static async start(): Promise<LoadGenerator> {
    // 'advanced' serialisation carries the latencies as a typed array, not as JSON text.
    const child = fork(COMPILED.loadGenerator, [], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`the load generator exited with ${code} before it was ready`)));
    });
    return new LoadGenerator(child);
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  run(order: LoadOrder): Promise<LoadOutcome> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the load generator exited with ${code} during a run`));
      this.child.once('exit', onExit);
      this.child.once('message', (reply: Reply) => {
        this.child.off('exit', onExit);
        if ('ready' in reply) reject(new Error('unexpected message from the load generator'));
        else if (reply.ok) resolve(reply.outcome);
        else reject(new Error(`the load generator failed: ${reply.error}`));
      });
      this.child.send(order);
    });
  }

  stop(): void {
    this.child.kill('SIGTERM');
  }
}
