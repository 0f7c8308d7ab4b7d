/**
 * Loaded with `--require` into a front under `bench/gc.ts`: what the garbage collector and the
 * process spend between a first SIGUSR2 and a second, written as JSON to `gcReportFile(pid)`:
 * collections and their pause time by kind (a `gc` PerformanceObserver), the process's CPU time,
 * the young generation's size at the end, and the process's peak resident memory.
 */
import { writeFileSync } from 'node:fs';
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
  /** The young generation (new space) at the end of the window, bytes. */
  newSpaceBytes: number;
  /** The process's peak resident set size since it started (`maxRSS`), MiB: what a young generation's size costs in memory. */
  peakRssMiB: number;
}

/** Where the process `pid` writes its report (and, once counting, `<file>.started`). */
export function gcReportFile(pid: number): string {
  return path.join(os.tmpdir(), `animal-store-gc-${pid}.json`);
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
      report = { pauseMs: {}, collections: {}, cpuMicros: 0, newSpaceBytes: 0, peakRssMiB: 0 };
      cpuAtStart = process.cpuUsage();
      writeFileSync(`${file}.started`, '');
      return;
    }
    const spent = process.cpuUsage(cpuAtStart);
    report.cpuMicros = spent.user + spent.system;
    report.newSpaceBytes = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
    report.peakRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
    // The observer is told of the last collections in a later turn: written once it has been.
    setTimeout(() => writeWholeFile(file, JSON.stringify(report)), 100);
  });
}
