import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
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
  it('when two flag sets are alternated on a front, then each round reports the collector, the CPU (with the kernel part and each thread), the young generation and the peak RSS of each set, and the medians follow', async () => {
    // BENCH_STDOUT_DIR: each process's stdout kept, so V8's own trace (--trace-gc) can be read.
    // A directory not there yet: the bench makes it.
    const tempDir = mkdtempSync(path.join(os.tmpdir(), 'bench-gc-stdout-'));
    const stdoutDir = path.join(tempDir, 'out');
    const { stdout } = await run(process.execPath, [path.join(ROOT, 'dist/bench/gc.js'), 'express-hop', 'list', '--rounds', '1', '--requests', '300', '--flags', '', '--flags', '--max-semi-space-size=16 --trace-gc'], {
      cwd: ROOT,
      env: { ...process.env, BENCH_STDOUT_DIR: stdoutDir },
      timeout: 240_000,
    });
    const frontStdout = readFileSync(path.join(stdoutDir, 'express-hop.log'), 'utf8');
    rmSync(tempDir, { recursive: true, force: true });
    expect(frontStdout).toMatch(/Scavenge/);
    const rounds = stdout.split('\n').filter((line) => line.startsWith('round 1: '));
    expect(rounds).toHaveLength(2);
    for (const line of rounds) {
      expect(line).toMatch(/GC [\d.]+ µs\/req, CPU [\d.]+ µs\/req \(system [\d.]+\), new space \d+ MiB, peak RSS \d+ MiB/);
      // The kernel's share is part of the CPU; the main thread's time is read from /proc (Linux) and is never nothing under load.
      const cpu = Number(/CPU ([\d.]+) µs/.exec(line)![1]);
      expect(Number(/\(system ([\d.]+)\)/.exec(line)![1])).toBeLessThanOrEqual(cpu);
      expect(Number(/threads main ([\d.]+)/.exec(line)![1])).toBeGreaterThan(0);
      // A Node process under load holds more than 10 MiB: a figure of 0 would mean maxRSS was not read.
      expect(Number(/peak RSS (\d+) MiB/.exec(line)![1])).toBeGreaterThan(10);
    }
    // The set with --max-semi-space-size=16 ran with it: its young generation is at most 2 × 16 MiB.
    const small = rounds.find((line) => line.includes('--max-semi-space-size=16'))!;
    expect(Number(/new space (\d+) MiB/.exec(small)![1])).toBeLessThanOrEqual(32);
    expect(stdout).toMatch(/median of the rounds:\n {2}\(its own flags\) +GC [\d.]+ µs\/req, CPU \d+ µs\/req \(system \d+\), peak RSS \d+ MiB\n {2}--max-semi-space-size=16 --trace-gc +GC/);
  }, 300_000);
});
