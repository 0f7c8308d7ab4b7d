import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

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

/** What `/proc/<pid>/stat` says of a process, CPU times in microseconds. */
export interface ProcStat {
  pid: number;
  /** The command name (at most 15 characters). */
  name: string;
  ppid: number;
  /** Clock ticks after boot when the process started: tells a reused pid from the process it replaced. */
  startTime: number;
  /** User plus system CPU time of the whole process (all its threads: GC, libuv pool). */
  cpuMicros: number;
  /** The same of its children that have ended and been waited for (cutime + cstime). */
  childrenCpuMicros: number;
  /** A kernel thread (PF_KTHREAD): work the kernel does for whichever process caused it. */
  kernelThread: boolean;
}

const PF_KTHREAD = 0x00200000;

/** Parses the text of `/proc/<pid>/stat` (see proc(5)). */
export function parseStat(stat: string, ticksPerSecond = TICKS_PER_SECOND): ProcStat {
  // The command name (field 2) is in parentheses and may hold spaces: count fields after the last ')'.
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  // After the name: state is field 3, so field n is at n - 3.
  const at = (n: number) => Number(fields[n - 3]);
  const micros = (ticks: number) => (ticks * 1_000_000) / ticksPerSecond;
  return {
    pid: Number(stat.slice(0, stat.indexOf(' '))),
    name: stat.slice(stat.indexOf('(') + 1, close),
    ppid: at(4),
    startTime: at(22),
    cpuMicros: micros(at(14) + at(15)),
    childrenCpuMicros: micros(at(16) + at(17)),
    kernelThread: (at(9) & PF_KTHREAD) !== 0,
  };
}

/** User plus system CPU time of the whole process (all its threads: GC, libuv pool), in microseconds. */
export function cpuMicros(pid: number): number {
  return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8')).cpuMicros;
}

/** Every process this /proc shows (a process that ends while it is read is left out). */
export function processSnapshot(): ProcStat[] {
  const snapshot: ProcStat[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      snapshot.push(parseStat(readFileSync(`/proc/${entry}/stat`, 'utf8')));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return snapshot;
}

/** The resolution of `cpuMicros`: one clock tick. */
export const CPU_TICK_MICROS = 1_000_000 / TICKS_PER_SECOND;

/**
 * CPU time the hypervisor gave to other machines while this one's CPUs had work to run (the
 * `steal` column of /proc/stat's `cpu` line), µs since boot, all CPUs together; 0 where the
 * kernel does not count it. No process of this machine shows it, yet it slows every one of them.
 */
export function stolenMicros(stat = readFileSync('/proc/stat', 'utf8'), ticksPerSecond = TICKS_PER_SECOND): number {
  const fields = /^cpu\s+(.*)$/m.exec(stat)?.[1]?.trim().split(/\s+/) ?? [];
  const steal = Number(fields[7] ?? 0);
  return Number.isFinite(steal) ? (steal * 1_000_000) / ticksPerSecond : 0;
}

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
