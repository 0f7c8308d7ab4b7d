import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * What the kernel says a process has used, read from `/proc/<pid>/`, so every process of the bench
 * (services, redis-server, the load generator) is measured the same way and from the outside:
 * no process has to cooperate, and nothing is measured from inside the process being measured.
 * Linux only, which is where the bench runs.
 */

/** Clock ticks per second, the unit of utime and stime (almost always 100). */
const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User plus system CPU time of the whole process (all its threads: GC, libuv pool), in microseconds. */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces: count fields after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the name: state is field 3, so utime (14) and stime (15) are at 11 and 12.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1_000_000) / TICKS_PER_SECOND;
}

/** The resolution of `cpuMicros`: one clock tick. */
export const CPU_TICK_MICROS = 1_000_000 / TICKS_PER_SECOND;

export interface Memory {
  /** Resident set size now, KiB. */
  rssKiB: number;
  /** The highest resident set size since the process started (VmHWM), KiB. */
  peakRssKiB: number;
}

export function memory(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
  return { rssKiB: field('VmRSS'), peakRssKiB: field('VmHWM') };
}

export function alive(pid: number): boolean {
  try {
    readFileSync(`/proc/${pid}/stat`);
    return true;
  } catch {
    return false;
  }
}

/**
 * CPU time the whole machine spent busy (all cores; idle and I/O wait excluded), in microseconds:
 * with the bench's own processes subtracted, what other work on the machine took meanwhile.
 */
export function machineBusyMicros(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
  // cpu  user nice system idle iowait irq softirq steal …
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  const ticks = [user, nice, system, irq, softirq, steal].reduce((sum: number, n) => sum + (n ?? 0), 0);
  return (ticks * 1_000_000) / TICKS_PER_SECOND;
}
