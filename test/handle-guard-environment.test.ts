import { spawn } from 'node:child_process';
import path from 'node:path';

/**
 * The service tier's environment (test/helpers/handle-guard-environment.js) in a process of its own
 * whose output is piped, as jest's workers' is in CI. Node opens process.stderr's handle when a
 * process first writes to it; a worker's first warning (Node 24 warns about http-proxy's
 * util._extend) once made the file that printed it fail as if it had left a pipe open (CI, Node 24).
 */
const environment = path.join(__dirname, 'helpers', 'handle-guard-environment.js');

const script = `
const Environment = require(${JSON.stringify(environment)});
const report = (text) => require('node:fs').writeSync(3, text);
(async () => {
  const env = new Environment({ projectConfig: { testEnvironmentOptions: {}, globals: {} }, globalConfig: {} }, { testPath: 'a-file.test.ts', console, docblockPragmas: {} });
  await env.setup();
  if (process.argv[1] === 'leak') setInterval(() => undefined, 1_000);
  if (process.argv[1] === 'warn') process.emitWarning('the first warning this worker prints');
  await new Promise((resolve) => setTimeout(resolve, 50));
  await env.teardown();
  report('clean');
  process.exit(0);
})().catch((error) => { report(error.message); process.exit(1); });
`;

/** Runs the environment around one "test file" that does `what`; the teardown's verdict. */
function verdict(what: 'warn' | 'leak', env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script, what], { stdio: ['ignore', 'pipe', 'pipe', 'pipe'], env: { ...process.env, HANDLE_GUARD_SETTLE_MS: '500', ...env } });
    let said = '';
    child.stdio[3]!.on('data', (chunk: Buffer) => (said += chunk.toString()));
    child.stdout!.resume();
    child.stderr!.resume();
    child.once('error', reject);
    child.once('close', () => resolve(said));
  });
}

describe('the service tier’s handle guard', () => {
  it('when a file prints the worker’s first warning to a piped stderr, then the file is not blamed for the pipe', async () => {
    await expect(verdict('warn')).resolves.toBe('clean');
  });

  it('when a file leaves a timer running, then its teardown names the file and the timer', async () => {
    await expect(verdict('leak')).resolves.toMatch(/a-file\.test\.ts left open after its tests: Timeout/);
  });

  it('when a file leaves a timer running and HANDLE_GUARD_STACKS is set, then the failure says where the timer was created', async () => {
    await expect(verdict('leak', { HANDLE_GUARD_STACKS: '1' })).resolves.toMatch(/Timeout of 1000 ms, Error: timer created\n\s+at /);
  });
});
