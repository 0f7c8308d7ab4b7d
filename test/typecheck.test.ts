import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ROOT } from './helpers/processes';

// Jest runs the sources through swc, which strips types without checking them: this is the check.
describe('the whole project', () => {
  it('when type-checked with strict settings, then tsc reports no error', async () => {
    const tsc = require.resolve('typescript/bin/tsc');
    const run = promisify(execFile)(process.execPath, [tsc, '-p', 'tsconfig.json', '--noEmit'], { cwd: ROOT });
    await expect(run.then(() => 'clean', (error: { stdout?: string }) => error.stdout ?? String(error))).resolves.toBe('clean');
  }, 120_000);
});
