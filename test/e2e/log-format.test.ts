import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, waitFor } from '../helpers/ports';
import { COMPILED, ROOT } from '../helpers/processes';
import { TEST_ADMIN_TOKEN, TEST_SECRET } from '../helpers/system';

/**
 * Log lines are human-readable on a development terminal and JSON everywhere else. A terminal is
 * made with util-linux's `script`, which runs the service on a pseudo-terminal and copies what it
 * writes to a pipe this test reads.
 */
const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
if (!hasScript) console.warn('log-format tests skipped: `script` (util-linux) is not installed, so no pseudo-terminal can be made');
// Skipped for a stated reason: without `script` there is no terminal to run the service on.
const describeWithTerminal = hasScript ? describe : describe.skip;

interface Run {
  child: ChildProcess;
  output: () => string;
}

/** Runs `node <file>` on a pseudo-terminal (or, with `terminal: false`, on plain pipes). */
function run(file: string, env: Record<string, string>, terminal: boolean): Run {
  const fullEnv = { PATH: process.env.PATH, SHELL: '/bin/sh', LOG_LEVEL: 'info', ...env };
  const child = terminal
    ? spawn('script', ['-qefc', `exec "${process.execPath}" "${file}"`, '/dev/null'], { cwd: ROOT, env: fullEnv, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(process.execPath, [file], { cwd: ROOT, env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return { child, output: () => text };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

// eslint-disable-next-line no-control-regex -- colour escapes are what a terminal line is made of
const ANSI = /\u001b\[[0-9;]*m/g;
const plain = (text: string) => text.replace(ANSI, '').replace(/\r/g, '');

describeWithTerminal('log format', () => {
  let dir: string;
  const runs: Run[] = [];
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'log-format-'));
  });
  afterAll(async () => {
    await Promise.all(runs.map((r) => stop(r.child)));
    rmSync(dir, { recursive: true, force: true });
  });

  async function startPets(env: Record<string, string>, terminal: boolean): Promise<{ run: Run; port: number }> {
    const port = await freePort();
    const started = run(COMPILED.pets, { PETS_PORT: String(port), PETS_DB_PATH: path.join(dir, `pets-${port}.db`), INTERNAL_JWT_SECRET: TEST_SECRET, ...env }, terminal);
    runs.push(started);
    await waitFor(() => started.output().includes('pets-service listening'), 15_000, `the listening line in:\n${started.output()}`);
    return { run: started, port };
  }

  it('when the pets-service writes to a terminal outside production, then its lines are human-readable, requests included', async () => {
    const { run: pets, port } = await startPets({}, true);
    expect(plain(pets.output())).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(pets-service\): pets-service listening$/m);
    expect(pets.output()).toMatch(ANSI); // coloured
    expect(pets.output()).not.toContain('{"level"');

    await fetch(`http://127.0.0.1:${port}/pets`); // 401: the access log writes one line, at once
    await waitFor(() => /INFO \(pets-service\): request completed/.test(plain(pets.output())), 5_000, 'the access-log line');
    expect(pets.output()).not.toContain('{"level"');
  });

  it('when the pets-service writes to a terminal in production, then its lines are JSON', async () => {
    const { run: pets } = await startPets({ NODE_ENV: 'production' }, true);
    const line = plain(pets.output())
      .split('\n')
      .find((text) => text.includes('pets-service listening'))!;
    expect(JSON.parse(line)).toMatchObject({ level: 30, name: 'pets-service', msg: 'pets-service listening' });
  });

  it('when the pets-service writes to a pipe outside production, then its lines are JSON', async () => {
    const { run: pets } = await startPets({}, false);
    const line = pets
      .output()
      .split('\n')
      .find((text) => text.includes('pets-service listening'))!;
    expect(JSON.parse(line)).toMatchObject({ level: 30, name: 'pets-service', msg: 'pets-service listening' });
  });

  it('when the gateway writes to a terminal outside production, then its warnings are human-readable too', async () => {
    const [port, adminPort] = [await freePort(), await freePort()];
    const gateway = run(COMPILED.gateway, { PORT: String(port), ADMIN_PORT: String(adminPort), ADMIN_TOKEN: TEST_ADMIN_TOKEN, INTERNAL_JWT_SECRET: TEST_SECRET, PETS_URL: 'http://127.0.0.1:1' }, true);
    runs.push(gateway);
    await waitFor(() => gateway.output().includes('gateway listening'), 15_000, `the listening line in:\n${gateway.output()}`);
    expect(plain(gateway.output())).toMatch(/^\[[\d:.]+\] WARN \(gateway\): REDIS_URL is not set/m);
    expect(gateway.output()).not.toContain('{"level"');
  });
});
