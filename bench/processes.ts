import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { COMPILED_SERVICES, ROOT } from '../tools/compiled';
import { processSnapshot } from './proc';

export { ROOT };

export const COMPILED = {
  ...COMPILED_SERVICES,
  bareHop: path.join(ROOT, 'dist/bench/bare-hop.js'),
  expressHop: path.join(ROOT, 'dist/bench/express-hop.js'),
  expressHopRedis: path.join(ROOT, 'dist/bench/express-hop-redis.js'),
  expressHopRawRedis: path.join(ROOT, 'dist/bench/express-hop-raw-redis.js'),
  loadGenerator: path.join(ROOT, 'dist/bench/load-generator.js'),
};

const STDERR_KEPT = 8_192;

/**
 * Where a process's stdout goes: /dev/null, or with BENCH_STDOUT_DIR set, appended to
 * `<dir>/<name>.log`, the directory made if need be (a diagnosis run: V8's `--trace-gc-nvp` and
 * `--trace-deopt` print there, given with `bench/gc.ts --flags`). The file costs the process its
 * writes, so not for a verdict.
 */
function stdoutOf(name: string): 'ignore' | number {
  const dir = process.env.BENCH_STDOUT_DIR;
  if (!dir) return 'ignore';
  mkdirSync(dir, { recursive: true });
  return openSync(path.join(dir, `${name}.log`), 'a');
}

/**
 * A Node process of the system under test, started from the compiled build. Its stdout (the access
 * log at `info`) goes to /dev/null (or a file, `stdoutOf`): the bench must not spend its own CPU
 * reading it, and a pipe nobody drains would stall the service. The end of stderr is kept for
 * error messages.
 */
export class BenchProcess {
  private stderrTail = '';
  private readonly exited: Promise<number | null>;

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_KEPT);
    });
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /** `nodeOptions` (e.g. `--cpu-prof`) are Node's own flags, given before the script; `node` the executable (the bench's own by default). */
  static start(name: string, script: string, env: Record<string, string>, nodeOptions: string[] = [], node = process.execPath): BenchProcess {
    const stdout = stdoutOf(name);
    const child = spawn(node, [...nodeOptions, script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', stdout, 'pipe'],
    });
    // The child has its own copy of the file's descriptor.
    if (typeof stdout === 'number') closeSync(stdout);
    return new BenchProcess(name, child);
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error(`${this.name} has no pid: it did not start`);
    return this.child.pid;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Waits until `url` answers to `isReady`'s liking (any answer by default); fails at once if the process exits. */
  async ready(url: string, isReady: (response: Response) => Promise<boolean> | boolean = () => true, timeoutMs = 20_000): Promise<this> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.running) throw new Error(`${this.name} exited before it was ready:\n${this.stderrTail}`);
      try {
        if (await isReady(await fetch(url))) return this;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`${this.name} was not ready at ${url} within ${timeoutMs} ms:\n${this.stderrTail}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** SIGTERM (the services drain, and a `--cpu-prof` process writes its profile on the way out), SIGKILL after `graceMs`. */
  async stop(graceMs = 15_000): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  get errors(): string {
    return this.stderrTail;
  }
}

/**
 * Kills this process's children when it exits, however it exits: a bench that dies of an uncaught
 * error (once: an 'error' event nobody listened to) skips its `finally` and its `stop()`, and left
 * its gateways, pets-service and redis-server running, busy with background work: the next
 * bench's "other work". SIGINT and SIGTERM end the bench through `exit` too.
 */
export function killChildrenOnExit(): void {
  process.once('exit', () => {
    for (const child of processSnapshot()) {
      if (child.ppid !== process.pid) continue;
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });
  for (const [signal, status] of [['SIGINT', 130], ['SIGTERM', 143]] as const) process.once(signal, () => process.exit(status));
}
