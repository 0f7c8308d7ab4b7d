/**
 * Reads a V8 sampling heap profile (`HeapProfiler.stopSampling`'s `profile`) and says what a request
 * allocates: the bytes per request in all, by the function that allocated them, and by the nearest
 * function of ours on the stack (a `dist/` file outside `node_modules`), where a cut would be made.
 */
interface HeapNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children: HeapNode[];
}
export interface HeapProfile {
  head: HeapNode;
  samples: { size: number; nodeId: number }[];
}

export interface AllocSummary {
  bytesPerRequest: number;
  byFunction: [string, number][];
  byOurs: [string, number][];
}

const where = ({ callFrame: { functionName, url, lineNumber } }: HeapNode): string =>
  `${functionName || '(anonymous)'} ${url.replace(/^.*?\/(node_modules\/|dist\/)/, '$1').replace(/^file:\/\//, '')}:${lineNumber + 1}`;
const ours = (node: HeapNode): boolean => node.callFrame.url.includes('/dist/') && !node.callFrame.url.includes('/node_modules/');

export function summariseAlloc(profile: HeapProfile, requests: number, top = 25): AllocSummary {
  const stacks = new Map<number, HeapNode[]>();
  const walk = (node: HeapNode, stack: HeapNode[]) => {
    const own = [...stack, node];
    stacks.set(node.id, own);
    for (const child of node.children) walk(child, own);
  };
  walk(profile.head, []);
  const byFunction = new Map<string, number>();
  const byOurs = new Map<string, number>();
  let total = 0;
  for (const { size, nodeId } of profile.samples) {
    const stack = stacks.get(nodeId) ?? [];
    total += size;
    const leaf = stack[stack.length - 1];
    if (leaf) byFunction.set(where(leaf), (byFunction.get(where(leaf)) ?? 0) + size);
    const nearest = [...stack].reverse().find(ours);
    const key = nearest ? where(nearest) : '(none of ours)';
    byOurs.set(key, (byOurs.get(key) ?? 0) + size);
  }
  const perRequest = (entries: Map<string, number>) =>
    [...entries]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, bytes]): [string, number] => [name, Math.round(bytes / requests)]);
  return { bytesPerRequest: Math.round(total / requests), byFunction: perRequest(byFunction), byOurs: perRequest(byOurs) };
}

export function allocText(title: string, { bytesPerRequest, byFunction, byOurs }: AllocSummary): string {
  const rows = (entries: [string, number][]) => entries.map(([name, bytes]) => `${String(bytes).padStart(8)}  ${name}`);
  return [`${title}: ${bytesPerRequest} bytes allocated per request (sampled, freed objects included)`, '  by the function that allocated, bytes per request:', ...rows(byFunction), '  by the nearest function of ours on the stack:', ...rows(byOurs)].join('\n');
}
