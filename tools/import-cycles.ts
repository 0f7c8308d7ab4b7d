import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * Import circles among the repository's TypeScript modules (`npm run lint` fails on any). Every
 * import counts, `import type` and `export … from` included: a type-only circle is still two
 * modules that cannot be understood, moved or tested one without the other. Only relative imports
 * are followed (packages cannot import back). Read with the compiler's own pre-processor, so
 * comments and strings that look like imports are not taken for them.
 */

const SKIPPED_DIRECTORIES = new Set(['node_modules', 'dist', 'coverage', 'generated', '.git']);

/** Every .ts file under `roots`, skipping built and installed folders. */
export function typeScriptFiles(roots: readonly string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(entry.name)) walk(full);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        files.push(full);
      }
    }
  };
  for (const root of roots) if (existsSync(root)) walk(root);
  return files.sort();
}

/** The file a relative specifier names (`./x`, `./x.js`, `./dir` for its index.ts), or undefined. */
function resolveRelative(from: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(from), specifier);
  const candidates = [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, path.join(base, 'index.ts')];
  return candidates.find((file) => file.endsWith('.ts') && existsSync(file) && statSync(file).isFile());
}

/** Each file's relative imports, resolved to files. */
export function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, false);
    const targets = importedFiles
      .map(({ fileName }) => fileName)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => resolveRelative(file, specifier))
      .filter((target): target is string => target !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The circles: each a group of files that import one another in a ring (strongly connected, Tarjan), with one ring through them. */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || (graph.get(file) ?? []).includes(file)) groups.push(ringThrough(graph, new Set(group)));
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return groups;
}

/** One ring within a strongly connected group, as a readable path back to its start (breadth first, so the shortest). */
function ringThrough(graph: ReadonlyMap<string, readonly string[]>, group: ReadonlySet<string>): string[] {
  const start = [...group].sort()[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const next of graph.get(file) ?? []) {
      if (!group.has(next)) continue;
      if (next === start) {
        const ring = [file];
        while (ring[0] !== start) ring.unshift(cameFrom.get(ring[0]!)!);
        return [...ring, start];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, file);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

/** The folders checked: every package and tool of the repository. */
export const CHECKED_ROOTS = ['gateway', 'pets-service', 'shared', 'client/src', 'scripts', 'bench', 'tools', 'test'];
