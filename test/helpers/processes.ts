import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { COMPILED_SERVICES, ROOT } from '../../tools/compiled';
import { freePort, sleep } from './ports';

export { ROOT };

export const COMPILED = {
  ...COMPILED_SERVICES,
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

  /** `cwd`: the working folder (default the repository root), e.g. a copy of what the image holds. */
  static spawn(script: string, env: Record<string, string | undefined>, args: string[] = [], { cwd = ROOT }: { cwd?: string } = {}): ServiceProcess {
    const child = spawn(process.execPath, [script, ...args], {
      cwd,
      env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', ...env } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new ServiceProcess(child);
  }

  get exited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /**
   * Waits until `url` answers with any HTTP status from this process; fails at once if the process
   * exits first. "From this process": another test's server can win the race for a port between
   * `freePort()` and this child binding it, and would answer `url` meanwhile (seen on Node 24: a
   * suite's requests went to a pets-service and got 404s). So the listening socket must be this
   * child's; if it is not, the child fails with EADDRINUSE and `spawnOnFreePorts` picks new ports.
   */
  async ready(url: string, timeoutMs = 15_000): Promise<this> {
    const deadline = Date.now() + timeoutMs;
    const port = Number(new URL(url).port);
    for (;;) {
      if (this.exited) throw new ProcessExitedEarly(this.output);
      try {
        await fetch(url);
        if (!listensOn(this.child.pid, port)) throw new Error('another process answers on this port');
        return this;
      } catch {
        if (Date.now() > deadline) {
          // The caller never gets a handle to stop: a process left running would outlive the test run.
          this.child.kill('SIGKILL');
          throw new Error(`timed out after ${timeoutMs} ms waiting for ${url}\n${this.output}`);
        }
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

/**
 * Whether process `pid`, or one of its descendants (`npm start` runs the services as children),
 * holds a listening TCP socket on `port` (Linux: their fds against /proc/net/tcp{,6}). Where /proc
 * is missing the check cannot be made and passes.
 */
export function listensOn(pid: number | undefined, port: number): boolean {
  if (pid === undefined) return false;
  if (!existsSync('/proc/net/tcp')) return true;
  const portHex = port.toString(16).toUpperCase().padStart(4, '0');
  const listening = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is "ADDR:PORT" in hex; state 0A is LISTEN; the inode is the tenth field.
      if (fields[1]?.endsWith(`:${portHex}`) && fields[3] === '0A' && fields[9]) listening.add(fields[9]);
    }
  }
  if (listening.size === 0) return false;
  return processTree(pid).some((member) => socketInodes(member).some((inode) => listening.has(inode)));
}

/** The command lines (arguments, executable first) of `pid`'s descendants, from /proc (Linux only). */
export function descendantCommandLines(pid: number): string[][] {
  return processTree(pid)
    .slice(1)
    .flatMap((member) => {
      try {
        return [readFileSync(`/proc/${member}/cmdline`, 'utf8').split('\0').filter(Boolean)];
      } catch {
        return []; // gone meanwhile
      }
    });
}

/** `pid` and every process below it, from each process's parent in /proc/<pid>/stat. */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]!) ?? []));
  return tree;
}

function socketInodes(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        return target.startsWith('socket:[') ? [target.slice(8, -1)] : [];
      } catch {
        return []; // the fd closed meanwhile
      }
    });
  } catch {
    return []; // the process is gone
  }
}
