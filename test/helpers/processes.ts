import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort, sleep } from './ports';

export const ROOT = path.resolve(__dirname, '..', '..');

export const COMPILED = {
  gateway: path.join(ROOT, 'dist/gateway/src/main.js'),
  pets: path.join(ROOT, 'dist/pets-service/src/main.js'),
  start: path.join(ROOT, 'dist/scripts/start.js'),
  adminCli: path.join(ROOT, 'dist/gateway/src/cli/admin.js'),
};

export class ProcessExitedEarly extends Error {
  constructor(readonly output: string) {
    super(`process exited before it was ready:\n${output}`);
  }
}

/**
 * Starts a service on free ports, again on new ports if one was taken between `freePort()`
 * and the child binding it (another test's socket can win that race under load).
 */
export async function spawnOnFreePorts<T>(
  portCount: number,
  start: (ports: number[]) => Promise<T>,
  attempts = 3,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const ports = await Promise.all(Array.from({ length: portCount }, () => freePort()));
    try {
      return await start(ports);
    } catch (error) {
      const portTaken = error instanceof ProcessExitedEarly && /EADDRINUSE/.test(error.output);
      if (!portTaken || attempt >= attempts) throw error;
    }
  }
}

/** A real service process started from the compiled build (see global-setup.js). */
export class ServiceProcess {
  output = '';
  private exitPromise: Promise<number | null>;

  private constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
    this.exitPromise = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  static spawn(script: string, env: Record<string, string | undefined>, args: string[] = []): ServiceProcess {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', ...env } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new ServiceProcess(child);
  }

  get exited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /** Waits until `url` answers with any HTTP status; fails at once if the process exits first. */
  async ready(url: string, timeoutMs = 15_000): Promise<this> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.exited) throw new ProcessExitedEarly(this.output);
      try {
        await fetch(url);
        return this;
      } catch {
        if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${url}\n${this.output}`);
        await sleep(25);
      }
    }
  }

  waitForExit(): Promise<number | null> {
    return this.exitPromise;
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (!this.exited) this.child.kill(signal);
    return this.exitPromise;
  }
}
