/**
 * Where a count of `instructions.ts --keep` went, by function, JavaScript by name: callgrind names
 * V8's builtins and Node's C++ itself, but knows code V8 compiled at run time only by address,
 * which the map V8 wrote beside it (`--perf-basic-prof`) turns into a function and its file.
 *
 *   node dist/bench/instruction-profile.js DIR/LABEL.TIME [--requests N] [--top N]
 *
 * Prints the functions with the most instructions of their own (self) and with the most in all
 * they called (inclusive), per request when N, the count's requests, is given. The same count
 * gives the same profile, whatever else the machine did (issue 29).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

interface CodeRange {
  start: number;
  end: number;
  name: string;
}

/** The compiled code's address ranges, sorted by start (`start size name` in hex per line). */
export function parsePerfMap(text: string): CodeRange[] {
  const ranges: CodeRange[] = [];
  for (const line of text.split('\n')) {
    const match = /^([0-9a-f]+) ([0-9a-f]+) (.+)$/.exec(line);
    if (!match) continue;
    const start = parseInt(match[1]!, 16);
    ranges.push({ start, end: start + parseInt(match[2]!, 16), name: match[3]! });
  }
  return ranges.sort((a, b) => a.start - b.start);
}

/** The name of the code holding `address`: the last range starting at or before it, if it reaches that far. */
export function nameAt(ranges: readonly CodeRange[], address: number): string | undefined {
  let [low, high] = [0, ranges.length - 1];
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (ranges[middle]!.start <= address) low = middle + 1;
    else high = middle - 1;
  }
  const range = ranges[high];
  return range && address < range.end ? range.name : undefined;
}

/** callgrind_annotate's lines `  1,234 ( 5.00%)  file:function [object]`, as (cost, function) pairs. */
export function parseAnnotation(text: string): { cost: number; fn: string }[] {
  const rows: { cost: number; fn: string }[] = [];
  for (const line of text.split('\n')) {
    const match = /^\s*([\d,]+) \([\s\d.]+%\)\s+(?:\S*?:)?(.+?)(?: \[[^\]]*\])?$/.exec(line);
    if (!match || match[2] === 'PROGRAM TOTALS') continue;
    rows.push({ cost: Number(match[1]!.replaceAll(',', '')), fn: match[2]! });
  }
  return rows;
}

/** Rows with JIT addresses named and merged by name, largest first. */
export function named(rows: readonly { cost: number; fn: string }[], ranges: readonly CodeRange[]): { cost: number; fn: string }[] {
  const costs = new Map<string, number>();
  for (const { cost, fn } of rows) {
    const address = /^0x([0-9a-f]+)$/.exec(fn);
    const name = address ? (nameAt(ranges, parseInt(address[1]!, 16)) ?? fn) : fn;
    costs.set(name, (costs.get(name) ?? 0) + cost);
  }
  return [...costs].map(([fn, cost]) => ({ fn, cost })).sort((a, b) => b.cost - a.cost);
}

function main(): void {
  const args = process.argv.slice(2);
  const option = (name: string, fallback: number) => {
    const at = args.indexOf(name);
    return at >= 0 ? Number(args.splice(at, 2)[1]) : fallback;
  };
  const requests = option('--requests', 1);
  const top = option('--top', 40);
  const base = args[0]?.replace(/\.(callgrind|map)$/, '');
  if (!base) throw new Error('usage: instruction-profile.js DIR/LABEL.TIME [--requests N] [--top N]');
  const ranges = parsePerfMap(readFileSync(`${base}.map`, 'utf8'));
  const annotate = (inclusive: boolean) =>
    execFileSync('callgrind_annotate', [`--inclusive=${inclusive ? 'yes' : 'no'}`, '--threshold=100', `${base}.callgrind`], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const unit = requests > 1 ? 'instructions per request' : 'instructions';
  for (const inclusive of [false, true]) {
    process.stdout.write(`\n${inclusive ? 'inclusive (with all it called)' : 'self'}, ${unit}:\n`);
    for (const { cost, fn } of named(parseAnnotation(annotate(inclusive)), ranges).slice(0, top)) {
      process.stdout.write(`${Math.round(cost / requests).toLocaleString('en').padStart(12)}  ${fn.slice(0, 150)}\n`);
    }
  }
}

if (require.main === module) main();
