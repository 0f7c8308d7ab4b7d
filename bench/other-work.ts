/**
 * Other work on the machine while the bench measures (issue 29): a run with another process busy (a
 * test suite, a build) is not evidence. Counted from two `/proc` snapshots, one before and one
 * after a measured run: the CPU (utime + stime) every process outside the bench's own process tree
 * (the bench, the services, Redis and the load generator it started, and anything they started)
 * spent in between. Kernel threads are counted apart and not held against a run: much of their
 * work is the bench's own network traffic. Time the hypervisor stole (CPU given to other machines
 * on the same host) is counted too: on a busy host it slowed a run's every process by a fifth or
 * more, which no process of this machine shows (issue 29: a run with 0.68 cores stolen read 253 µs
 * per 429 where a quiet one read 165).
 */
import type { ProcStat } from './proc';

/** Other work above this, in cores averaged over the measured runs, and the bench gives no verdict. */
export const OTHER_WORK_LIMIT_CORES = 0.1;
/** CPU stolen by the hypervisor above this, in cores averaged over the measured runs, and the bench gives no verdict. */
export const STOLEN_LIMIT_CORES = 0.1;

export interface BusyProcess {
  name: string;
  pid: number;
  micros: number;
}

export interface OtherWork {
  /** CPU of every process outside the bench's tree, µs. */
  micros: number;
  /** CPU of kernel threads (ksoftirqd, kworker, …), µs: reported, not counted. */
  kernelMicros: number;
  /** CPU the hypervisor gave other machines meanwhile, µs (`stolenMicros` in proc.ts). */
  stolenMicros: number;
  /** The processes that took most of `micros`, most first. */
  busiest: BusyProcess[];
}

const BUSIEST_KEPT = 5;
const identity = (p: ProcStat) => `${p.pid}:${p.startTime}`;
/** CPU of a process and of its children it has waited for: a child that ended meanwhile counts in its parent. */
const total = (p: ProcStat) => p.cpuMicros + p.childrenCpuMicros;

/** `root` and every process descended from it, as either snapshot shows them. */
function treeOf(root: number, snapshots: readonly ProcStat[][]): Set<number> {
  const children = new Map<number, number[]>();
  for (const p of snapshots.flat()) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const tree = new Set<number>([root]);
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.pop()!) ?? []) {
      if (tree.has(child)) continue;
      tree.add(child);
      queue.push(child);
    }
  }
  return tree;
}

/**
 * What processes outside `root`'s tree spent between `before` and `after`. A process that started
 * meanwhile counts whole; one that ended meanwhile counts through its parent's children times,
 * less what it had spent before (when that parent is still there to have waited for it).
 */
export function otherWorkBetween(before: readonly ProcStat[], after: readonly ProcStat[], root: number, stolenMicros = 0): OtherWork {
  const tree = treeOf(root, [before as ProcStat[], after as ProcStat[]]);
  const earlier = new Map(before.map((p) => [identity(p), p]));
  const later = new Map(after.map((p) => [identity(p), p]));
  const spent = new Map<number, { name: string; micros: number }>();
  let kernelMicros = 0;
  for (const p of after) {
    if (tree.has(p.pid)) continue;
    const was = earlier.get(identity(p));
    const micros = total(p) - (was ? total(was) : 0);
    if (p.kernelThread) kernelMicros += micros;
    else spent.set(p.pid, { name: p.name, micros });
  }
  const survivors = new Map(after.filter((p) => earlier.has(identity(p))).map((p) => [p.pid, p]));
  for (const p of before) {
    if (later.has(identity(p)) || tree.has(p.pid) || p.kernelThread) continue;
    const parent = survivors.get(p.ppid);
    const charged = parent && spent.get(parent.pid);
    if (charged) charged.micros -= total(p);
  }
  const busiest = [...spent.entries()]
    .map(([pid, { name, micros }]) => ({ name, pid, micros: Math.max(0, micros) }))
    .filter((p) => p.micros > 0)
    .sort((a, b) => b.micros - a.micros);
  return { micros: busiest.reduce((sum, p) => sum + p.micros, 0), kernelMicros: Math.max(0, kernelMicros), stolenMicros: Math.max(0, stolenMicros), busiest: busiest.slice(0, BUSIEST_KEPT) };
}

/** The other work of several runs together; a process busy in several adds up. */
export function sumOtherWork(works: readonly OtherWork[]): OtherWork {
  const byProcess = new Map<string, BusyProcess>();
  for (const p of works.flatMap((w) => w.busiest)) {
    const key = `${p.pid}:${p.name}`;
    byProcess.set(key, { ...p, micros: (byProcess.get(key)?.micros ?? 0) + p.micros });
  }
  return {
    micros: works.reduce((sum, w) => sum + w.micros, 0),
    kernelMicros: works.reduce((sum, w) => sum + w.kernelMicros, 0),
    stolenMicros: works.reduce((sum, w) => sum + w.stolenMicros, 0),
    busiest: [...byProcess.values()].sort((a, b) => b.micros - a.micros).slice(0, BUSIEST_KEPT),
  };
}

/**
 * What disturbed one measured sample of `seconds`, or undefined when nothing did: other processes'
 * CPU or the hypervisor's stolen time above its limit, in cores (the bench measures it again).
 */
export function disturbanceOf(work: OtherWork, seconds: number): string | undefined {
  const other = work.micros / 1e6 / seconds;
  const stolen = work.stolenMicros / 1e6 / seconds;
  const found = [...(other > OTHER_WORK_LIMIT_CORES ? [`other work: ${other.toFixed(2)} cores`] : []), ...(stolen > STOLEN_LIMIT_CORES ? [`stolen: ${stolen.toFixed(2)} cores`] : [])];
  return found.length > 0 ? found.join(', ') : undefined;
}

/** Other work over `seconds` of measuring, as the report keeps it. */
export interface OtherWorkFigure {
  /** Average CPU of other processes, in cores (1 = one core busy all the time). */
  cores: number;
  kernelCores: number;
  /** CPU stolen by the hypervisor, in cores. */
  stolenCores: number;
  seconds: number;
  limitCores: number;
  stolenLimitCores: number;
  busiest: { name: string; pid: number; cores: number }[];
}

export function otherWorkFigure(work: OtherWork, seconds: number): OtherWorkFigure {
  const cores = (micros: number) => (seconds > 0 ? Math.round((micros / 1e6 / seconds) * 1000) / 1000 : Number.NaN);
  return {
    cores: cores(work.micros),
    kernelCores: cores(work.kernelMicros),
    stolenCores: cores(work.stolenMicros),
    seconds: Math.round(seconds * 100) / 100,
    limitCores: OTHER_WORK_LIMIT_CORES,
    stolenLimitCores: STOLEN_LIMIT_CORES,
    busiest: work.busiest.map((p) => ({ name: p.name, pid: p.pid, cores: cores(p.micros) })),
  };
}

/** Why a run gives no verdict on the targets, or undefined when the machine was quiet enough. */
export function verdictRefusal(figure: OtherWorkFigure): string | undefined {
  if (figure.stolenCores > figure.stolenLimitCores) {
    return (
      `the hypervisor gave ${figure.stolenCores} cores to other machines on average while the bench measured (limit ${figure.stolenLimitCores}): ` +
      'every process here ran slower by an amount nobody can subtract, so no target is judged. Run it again when the host is quieter.'
    );
  }
  if (figure.cores <= figure.limitCores) return undefined;
  const who = figure.busiest.map((p) => `${p.name} (pid ${p.pid}) ${p.cores}`).join(', ');
  return (
    `other processes used ${figure.cores} cores on average while the bench measured (limit ${figure.limitCores}): ` +
    `the figures are not evidence, so no target is judged${who ? `; busiest: ${who}` : ''}. Run it again on an idle machine.`
  );
}
