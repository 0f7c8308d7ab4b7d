import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports';

const run = promisify(execFile);

/**
 * A PostgreSQL server of one test file's own: `initdb` into a temporary directory and `pg_ctl` on a
 * free port, for tests that stop and start the server. Never the machine's shared server (5432),
 * which other tests and other people use. Run as the `postgres` user when this process is root
 * (PostgreSQL refuses to run as root), else as the current user. Trust authentication on
 * 127.0.0.1 only; the socket lives in the data directory.
 */
export class PrivatePostgres {
  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly bin: string,
  ) {}

  /** `postgres://postgres@127.0.0.1:PORT/postgres`. */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  private get dataDir(): string {
    return path.join(this.dir, 'data');
  }

  /** Creates the cluster and starts it; `stop()` then `start()` restart it on the same port and data. */
  static async create(): Promise<PrivatePostgres> {
    const bin = postgresBinDir();
    if (!bin) throw new Error(HOW_TO_RUN_PRIVATE_POSTGRES_TESTS);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'private-postgres-'));
    const owner = runAsPostgres() ? postgresIds() : undefined;
    if (owner) chownSync(dir, owner.uid, owner.gid);
    chmodSync(dir, 0o700);
    const server = new PrivatePostgres(await freePort(), dir, bin);
    try {
      await server.pg('initdb', ['-D', server.dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
      await server.start();
    } catch (error) {
      await server.destroy();
      throw error;
    }
    return server;
  }

  /** Starts the server and waits until it accepts connections. */
  async start(): Promise<void> {
    const options = `-p ${this.port} -c listen_addresses=127.0.0.1 -k ${this.dataDir} -c fsync=on -c synchronous_commit=on`;
    await this.pg('pg_ctl', ['-D', this.dataDir, '-o', options, '-l', path.join(this.dir, 'server.log'), '-w', '-t', '30', 'start']);
  }

  /**
   * Stops the server. `immediate` is a crash as far as the data goes (no checkpoint; WAL replay at the
   * next start), `fast` a clean shutdown; both end every client connection at once.
   */
  async stop(mode: 'fast' | 'immediate' = 'immediate'): Promise<void> {
    await this.pg('pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', '-t', '30', 'stop']);
  }

  /** Stops the server (if running) and removes its directory. */
  async destroy(): Promise<void> {
    if (existsSync(path.join(this.dataDir, 'postmaster.pid'))) await this.stop('immediate').catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** The server's log, for failure messages. */
  log(): string {
    try {
      return readFileSync(path.join(this.dir, 'server.log'), 'utf8');
    } catch {
      return '';
    }
  }

  private async pg(program: 'initdb' | 'pg_ctl', args: string[]): Promise<void> {
    const binary = path.join(this.bin, program);
    const [command, commandArgs] = runAsPostgres() ? ['runuser', ['-u', 'postgres', '--', binary, ...args]] : [binary, args];
    try {
      await run(command, commandArgs, { timeout: 60_000, cwd: this.dir });
    } catch (error) {
      const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
      throw new Error(`${program} ${args.join(' ')} failed:\n${stdout}${stderr}\n${this.log()}`, { cause: error });
    }
  }
}

export const HOW_TO_RUN_PRIVATE_POSTGRES_TESTS =
  'Tests that stop and start PostgreSQL skipped: initdb and pg_ctl were not found (on PATH or in /usr/lib/postgresql/*/bin). ' +
  'Install the PostgreSQL server binaries (e.g. `apt-get install postgresql`); these tests start a server of their own, never the shared one.';

/** Where initdb and pg_ctl are: on PATH, or Debian's versioned directory (newest first); undefined when neither. */
export function postgresBinDir(): string | undefined {
  const candidates = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian).sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((version) => path.join(debian, version, 'bin')));
  }
  return candidates.find((dir) => existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'pg_ctl')));
}

/** `describe` when initdb and pg_ctl can run here (as `postgres` when root); otherwise a skip that says why. */
export function describeIfPrivatePostgres(): jest.Describe {
  if (postgresBinDir() && (!runAsPostgres() || postgresIds())) return describe;
  console.warn(HOW_TO_RUN_PRIVATE_POSTGRES_TESTS);
  // Skipped for a stated reason: no PostgreSQL server binaries on this machine (see HOW_TO_RUN_PRIVATE_POSTGRES_TESTS).
  return describe.skip;
}

function runAsPostgres(): boolean {
  return process.getuid?.() === 0;
}

function postgresIds(): { uid: number; gid: number } | undefined {
  const result = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const group = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (result.status !== 0 || group.status !== 0) return undefined;
  return { uid: Number(result.stdout.trim()), gid: Number(group.stdout.trim()) };
}
