import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../helpers/processes';

/**
 * `bench/gc.ts`, the instrument that alternates Node flags on a front under the bench's load
 * (issue 29): it runs the whole system for a few hundred requests per flag set, so that it never
 * rots. Its figures are not checked against any speed, only that each is there and sane.
 */
const run = promisify(execFile);

describe('node dist/bench/gc.js', () => {
  it('when two flag sets are alternated on a front, then each round reports the collector, the CPU, the young generation and the peak RSS of each set, and the medians follow', async () => {
    const { stdout } = await run(process.execPath, [path.join(ROOT, 'dist/bench/gc.js'), 'express-hop', 'list', '--rounds', '1', '--requests', '300', '--flags', '', '--flags', '--max-semi-space-size=16'], {
      cwd: ROOT,
      timeout: 240_000,
    });
    const rounds = stdout.split('\n').filter((line) => line.startsWith('round 1: '));
    expect(rounds).toHaveLength(2);
    for (const line of rounds) {
      expect(line).toMatch(/GC [\d.]+ µs\/req, CPU [\d.]+ µs\/req, new space \d+ MiB, peak RSS \d+ MiB/);
      // A Node process under load holds more than 10 MiB: a figure of 0 would mean maxRSS was not read.
      expect(Number(/peak RSS (\d+) MiB/.exec(line)![1])).toBeGreaterThan(10);
    }
    // The set with --max-semi-space-size=16 ran with it: its young generation is at most 2 × 16 MiB.
    const small = rounds.find((line) => line.includes('--max-semi-space-size=16'))!;
    expect(Number(/new space (\d+) MiB/.exec(small)![1])).toBeLessThanOrEqual(32);
    expect(stdout).toMatch(/median of the rounds:\n {2}\(its own flags\) +GC [\d.]+ µs\/req, CPU \d+ µs\/req, peak RSS \d+ MiB\n {2}--max-semi-space-size=16 +GC/);
  }, 300_000);
});
