/**
 * Loaded with `--require` into a front under `bench/gc.ts`: what the garbage collector and the
 * process spend between a first SIGUSR2 and a second, written as JSON to `gcReportFile(pid)`:
 * collections and their pause time by kind (a `gc` PerformanceObserver), the process's CPU time,
 * the young generation's size at the end, and the process's peak resident memory.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { writeWholeFile } from './whole-file';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import v8 from 'node:v8';

export interface GcReport {
  /** Pause time, ms, and collections, by kind (minor: scavenge; major: mark-compact; incremental; weakcb). */
  pauseMs: Record<string, number>;
  collections: Record<string, number>;
  /** The process's user + system CPU time over the window, µs. */
  cpuMicros: number;
  /** The part of it spent in the kernel (system calls: socket reads and writes, the log's writes), µs. */
  systemMicros: number;
  /** CPU time by thread over the window, ms (Linux: /proc/self/task), keyed by the thread's name, the main thread as 'main': what V8's helper threads (concurrent marking, compilers, parallel scavenges) add to the process's CPU besides the main thread's. */
  threadMs: Record<string, number>;
  /** The young generation (new space) at the end of the window, bytes. */
  newSpaceBytes: number;
  /** The process's peak resident set size since it started (`maxRSS`), MiB: what a young generation's size costs in memory. */
  peakRssMiB: number;
}

/** Where the process `pid` writes its report (and, once counting, `<file>.started`). */
export function gcReportFile(pid: number): string {
  return path.join(os.tmpdir(), `animal-store-gc-${pid}.json`);
}

/** CPU ms by thread name since the process started (an empty record where /proc is not there). */
function threadCpuMs(): Record<string, number> {
  const byName: Record<string, number> = {};
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return byName;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // The name sits in parentheses and may hold spaces; the fields after it are space-separated.
      const name = tid === String(process.pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).trim();
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime are the 14th and 15th fields of stat, 12th and 13th after the name, in clock ticks (100 a second).
      byName[name] = (byName[name] ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return byName;
}

const KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

// Only when preloaded (`--require`: no main module yet), not when `bench/gc.ts` imports the path.
if (require.main === undefined) {
  const file = gcReportFile(process.pid);
  let report: GcReport | undefined;
  let cpuAtStart: NodeJS.CpuUsage | undefined;
  let threadsAtStart: Record<string, number> = {};
  const observer = new PerformanceObserver((list) => {
    if (!report) return;
    for (const entry of list.getEntries()) {
      const kind = KINDS[((entry as { detail?: { kind?: number } }).detail)?.kind ?? -1] ?? 'other';
      report.pauseMs[kind] = (report.pauseMs[kind] ?? 0) + entry.duration;
      report.collections[kind] = (report.collections[kind] ?? 0) + 1;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  process.on('SIGUSR2', () => {
    if (!report) {
      report = { pauseMs: {}, collections: {}, cpuMicros: 0, systemMicros: 0, threadMs: {}, newSpaceBytes: 0, peakRssMiB: 0 };
      cpuAtStart = process.cpuUsage();
      threadsAtStart = threadCpuMs();
      writeFileSync(`${file}.started`, '');
      return;
    }
    const spent = process.cpuUsage(cpuAtStart);
    report.cpuMicros = spent.user + spent.system;
    report.systemMicros = spent.system;
    for (const [name, ms] of Object.entries(threadCpuMs())) report.threadMs[name] = ms - (threadsAtStart[name] ?? 0);
    report.newSpaceBytes = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
    report.peakRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
    // The observer is told of the last collections in a later turn: written once it has been.
    setTimeout(() => writeWholeFile(file, JSON.stringify(report)), 100);
  });
}
