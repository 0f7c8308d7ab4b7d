import { disturbanceOf, otherWorkBetween, otherWorkFigure, sumOtherWork, verdictRefusal } from './other-work';
import { parseStat, stolenMicros, type ProcStat } from './proc';

const BENCH = 1000;

/** A process as /proc shows it; CPU in µs. */
function proc(pid: number, ppid: number, cpuMicros: number, more: Partial<ProcStat> = {}): ProcStat {
  return { pid, name: `p${pid}`, ppid, startTime: pid * 10, cpuMicros, childrenCpuMicros: 0, kernelThread: false, ...more };
}

describe('other work from /proc snapshots', () => {
  it('when a /proc/<pid>/stat line is parsed, then a name with spaces and parentheses does not shift the fields', () => {
    // utime 250, stime 50, cutime 30, cstime 20 ticks at 100 per second; flags with PF_KTHREAD clear.
    const line = '4242 (node (worker) 1) S 17 4242 17 0 -1 4194304 900 0 0 0 250 50 30 20 20 0 11 0 987654 1000 200 18446744073709551615';
    expect(parseStat(line, 100)).toEqual({ pid: 4242, name: 'node (worker) 1', ppid: 17, startTime: 987654, cpuMicros: 3_000_000, childrenCpuMicros: 500_000, kernelThread: false });
    expect(parseStat('9 (ksoftirqd/0) S 2 0 0 0 -1 69238848 0 0 0 0 7 3 0 0 20 0 1 0 15 0 0', 100).kernelThread).toBe(true);
  });

  it("when the bench's own processes and their children work, then none of it counts, and only other processes' deltas do", () => {
    const before = [proc(BENCH, 1, 5e6), proc(1001, BENCH, 1e6), proc(1002, 1001, 1e6), proc(50, 1, 2e6), proc(60, 1, 3e6)];
    const after = [proc(BENCH, 1, 9e6), proc(1001, BENCH, 8e6), proc(1002, 1001, 7e6), proc(1003, BENCH, 4e6), proc(50, 1, 2.5e6), proc(60, 1, 3e6)];
    const work = otherWorkBetween(before, after, BENCH);
    expect(work.micros).toBe(0.5e6);
    expect(work.busiest).toEqual([{ name: 'p50', pid: 50, micros: 0.5e6 }]);
  });

  it('when another process starts during the run, then all its CPU counts; when a pid is reused, the new process is not charged the old one', () => {
    const before = [proc(BENCH, 1, 0), proc(70, 1, 9e6)];
    const after = [proc(BENCH, 1, 0), proc(80, 1, 0.3e6), proc(70, 1, 0.2e6, { startTime: 99_999 })];
    expect(otherWorkBetween(before, after, BENCH).micros).toBe(0.5e6);
  });

  it('when another process runs a child that ends during the run, then only what the child spent during the run counts (through its parent)', () => {
    // The child (pid 91) had spent 1 s before; it ended after 3 s in all, waited for by its parent 90.
    const before = [proc(BENCH, 1, 0), proc(90, 1, 1e6), proc(91, 90, 1e6)];
    const after = [proc(BENCH, 1, 0), proc(90, 1, 1e6, { childrenCpuMicros: 3e6 })];
    expect(otherWorkBetween(before, after, BENCH).micros).toBe(2e6);
  });

  it('when a kernel thread works, then it is reported apart and not counted as other work', () => {
    const before = [proc(BENCH, 1, 0), proc(9, 2, 1e6, { kernelThread: true })];
    const after = [proc(BENCH, 1, 0), proc(9, 2, 1.4e6, { kernelThread: true })];
    expect(otherWorkBetween(before, after, BENCH)).toEqual({ micros: 0, kernelMicros: 0.4e6, stolenMicros: 0, busiest: [] });
  });

  it("when the hypervisor stole time, then /proc/stat's steal column is read in µs and kept beside the other work, never negative", () => {
    // user nice system idle iowait irq softirq steal guest guest_nice, at 100 ticks a second.
    const stat = 'cpu  101733 0 17668 1814544 1892 0 4204 9873 0 0\ncpu0 50000 0 8000 900000 900 0 2000 4900 0 0\nintr 1\n';
    expect(stolenMicros(stat, 100)).toBe(98.73e6);
    expect(stolenMicros('intr 1\n', 100)).toBe(0);
    expect(otherWorkBetween([proc(BENCH, 1, 0)], [proc(BENCH, 1, 0)], BENCH, 8.87e6).stolenMicros).toBe(8.87e6);
    expect(otherWorkBetween([proc(BENCH, 1, 0)], [proc(BENCH, 1, 0)], BENCH, -1).stolenMicros).toBe(0);
  });

  it('when several runs are added up, then the same process adds up and the busiest come first', () => {
    const run = (micros: number) => ({ micros, kernelMicros: 1, stolenMicros: 0, busiest: [{ name: 'jest', pid: 7, micros }] });
    expect(sumOtherWork([run(2), run(3), { micros: 4, kernelMicros: 0, stolenMicros: 0, busiest: [{ name: 'tsc', pid: 8, micros: 4 }] }])).toEqual({
      micros: 9,
      kernelMicros: 2,
      stolenMicros: 0,
      busiest: [
        { name: 'jest', pid: 7, micros: 5 },
        { name: 'tsc', pid: 8, micros: 4 },
      ],
    });
  });
});

describe('the verdict refused on a busy machine', () => {
  const figure = (micros: number, seconds: number) => otherWorkFigure({ micros, kernelMicros: 0, stolenMicros: 0, busiest: [{ name: 'jest', pid: 7, micros }] }, seconds);

  it('when other processes averaged at most 0.1 of a core, then the bench judges', () => {
    expect(figure(10e6, 100).cores).toBe(0.1);
    expect(verdictRefusal(figure(10e6, 100))).toBeUndefined();
  });

  it('when other processes averaged more than 0.1 of a core, then no verdict, and the reason names the load and the busiest process', () => {
    const reason = verdictRefusal(figure(10.5e6, 100));
    expect(reason).toContain('0.105 cores');
    expect(reason).toContain('limit 0.1');
    expect(reason).toContain('jest (pid 7) 0.105');
  });

  it('when the hypervisor stole more than 0.1 of a core on average, then no verdict even with no other process busy, and the reason says so', () => {
    const stolen = (micros: number) => otherWorkFigure({ micros: 0, kernelMicros: 0, stolenMicros: micros, busiest: [] }, 100);
    expect(stolen(10e6).stolenCores).toBe(0.1);
    expect(verdictRefusal(stolen(10e6))).toBeUndefined();
    const reason = verdictRefusal(stolen(68e6));
    expect(reason).toContain('hypervisor gave 0.68 cores to other machines');
    expect(reason).toContain('limit 0.1');
  });

  it('when one sample had other work or stolen time above 0.1 of a core, then it is named as disturbed (and measured again); at the limit, not', () => {
    const sample = (micros: number, stolenMicros: number) => ({ micros, kernelMicros: 0, stolenMicros, busiest: [] });
    expect(disturbanceOf(sample(1e6, 1e6), 10)).toBeUndefined();
    expect(disturbanceOf(sample(1.5e6, 0), 10)).toBe('other work: 0.15 cores');
    expect(disturbanceOf(sample(0, 6.8e6), 10)).toBe('stolen: 0.68 cores');
    expect(disturbanceOf(sample(2e6, 3e6), 10)).toBe('other work: 0.20 cores, stolen: 0.30 cores');
  });
});
