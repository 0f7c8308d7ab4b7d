/**
 * Old and new code in one process, alternating (issue 29): a cut worth a few microseconds per
 * request is below what a bench run can resolve, and on a shared machine both variants suffer the
 * same load only if they take turns. Each round times every variant once (`iterations` calls after
 * a warm-up), the order rotating; the report is the median per call of each over the rounds, and
 * the new variant's ratio to the old one, the figure worth reading. Time is the process's CPU time
 * (`process.cpuUsage`: every thread, GC included), not the clock: on a busy machine the clock
 * also counts the time other processes had the core.
 */
import { median } from '../results';

export interface Timing {
  name: string;
  /** Median over the rounds, ns of CPU per call. */
  nsPerCall: number;
  byRound: number[];
}

export function alternate(variants: Record<string, () => void>, { rounds = 9, iterations = 50_000 } = {}): Timing[] {
  const names = Object.keys(variants);
  for (const name of names) for (let i = 0; i < iterations; i += 1) variants[name]!();
  const byRound = new Map<string, number[]>(names.map((n) => [n, []]));
  for (let round = 0; round < rounds; round += 1) {
    for (let k = 0; k < names.length; k += 1) {
      const name = names[(round + k) % names.length]!;
      const call = variants[name]!;
      const start = process.cpuUsage();
      for (let i = 0; i < iterations; i += 1) call();
      const spent = process.cpuUsage(start);
      byRound.get(name)!.push(((spent.user + spent.system) * 1000) / iterations);
    }
  }
  return names.map((name) => ({ name, nsPerCall: Math.round(median(byRound.get(name)!)), byRound: byRound.get(name)!.map(Math.round) }));
}

/**
 * `alternate` for work that finishes in promises: each timed turn makes its `iterations` calls, then
 * waits one `setImmediate`, by which time every promise they started has settled (their microtasks
 * run before it), so the CPU of the asynchronous part is counted too. Calls that wait on I/O (a
 * Redis reply) are counted when `settled` says all of them have answered.
 */
export async function alternateAsync(
  variants: Record<string, () => void>,
  { rounds = 9, iterations = 20_000, settled = () => Promise.resolve() }: { rounds?: number; iterations?: number; settled?: () => Promise<void> } = {},
): Promise<Timing[]> {
  const names = Object.keys(variants);
  const turn = async (call: () => void) => {
    for (let i = 0; i < iterations; i += 1) call();
    await settled();
    await new Promise<void>((resolve) => setImmediate(resolve));
  };
  for (const name of names) await turn(variants[name]!);
  const byRound = new Map<string, number[]>(names.map((n) => [n, []]));
  for (let round = 0; round < rounds; round += 1) {
    for (let k = 0; k < names.length; k += 1) {
      const name = names[(round + k) % names.length]!;
      const start = process.cpuUsage();
      await turn(variants[name]!);
      const spent = process.cpuUsage(start);
      byRound.get(name)!.push(((spent.user + spent.system) * 1000) / iterations);
    }
  }
  return names.map((name) => ({ name, nsPerCall: Math.round(median(byRound.get(name)!)), byRound: byRound.get(name)!.map(Math.round) }));
}

/** e.g. `old 2,140 ns CPU/call, new 1,610 ns CPU/call: new ÷ old 0.75 (9 rounds alternating)`. */
export function timingText(timings: Timing[]): string {
  const [first] = timings;
  return timings
    .map((t) => `${t.name.padEnd(6)} ${t.nsPerCall.toLocaleString('en-US').padStart(7)} ns CPU/call${t === first ? '' : `, ÷ ${first!.name} ${(t.nsPerCall / first!.nsPerCall).toFixed(2)}`}  rounds: ${t.byRound.join(' ')}`)
    .join('\n');
}
