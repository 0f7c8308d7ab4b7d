import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { waitFor } from './ports';

export const ROOT = path.resolve(__dirname, '..', '..');

export const COMPILED = {
  gateway: path.join(ROOT, 'dist/gateway/src/main.js'),
  pets: path.join(ROOT, 'dist/pets-service/src/main.js'),
  start: path.join(ROOT, 'dist/scripts/start.js'),
  adminCli: path.join(ROOT, 'dist/gateway/src/cli/admin.js'),
};

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

  /** Waits until `url` answers with any HTTP status. */
  async ready(url: string, timeoutMs = 15_000): Promise<this> {
    await waitFor(
      async () => {
        if (this.exited) throw new Error(`process exited early:\n${this.output}`);
        await fetch(url);
        return true;
      },
      timeoutMs,
      `${url} (output so far: ${this.output.slice(-2000)})`,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${this.output}`);
    });
    return this;
  }

  waitForExit(): Promise<number | null> {
    return this.exitPromise;
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (!this.exited) this.child.kill(signal);
    return this.exitPromise;
  }
}
