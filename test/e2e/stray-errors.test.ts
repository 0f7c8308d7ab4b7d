import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../helpers/processes';

/**
 * An error nobody can catch (a timer's, a rejected promise's) in a process that installed
 * `keepServingThroughStrayErrors`, as both entry points do (ADR 0031): logged through pino, and the
 * process goes on. Node's default is to exit 1 (issue 24's review: a middleware throwing in a timer
 * killed the gateway; test/e2e/gateway-extensions.test.ts shows it on the gateway itself).
 */
describe('stray errors', () => {
  it('when a timer throws and a promise is rejected unhandled, then both are logged through pino and the process keeps running to its own end', () => {
    const script = `
      const { createLogger } = require(${JSON.stringify(path.join(ROOT, 'dist/shared/src/logger.js'))});
      const { keepServingThroughStrayErrors } = require(${JSON.stringify(path.join(ROOT, 'dist/shared/src/stray-errors.js'))});
      keepServingThroughStrayErrors(createLogger('t', 'info'), 'pets-service');
      setTimeout(() => { throw new Error('thrown in a timer'); }, 1);
      setTimeout(() => { Promise.reject(new Error('rejected with no handler')); }, 2);
      setTimeout(() => { process.stdout.write('still serving\\n'); }, 200);
    `;
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines.at(-1)).toBe('still serving');
    const logged = lines.slice(0, -1).map((line) => JSON.parse(line) as { level: number; msg: string; err: { message: string; stack: string } });
    expect(logged).toEqual([
      expect.objectContaining({ level: 50, msg: 'pets-service: an error nobody caught (outside any request); logged, the process keeps serving', err: expect.objectContaining({ message: 'thrown in a timer' }) }),
      expect.objectContaining({ level: 50, msg: 'pets-service: a promise was rejected with nothing to handle it; logged, the process keeps serving', err: expect.objectContaining({ message: 'rejected with no handler' }) }),
    ]);
    expect(logged[0]!.err.stack).toContain('thrown in a timer');
  });
});
