import { readFileSync } from 'node:fs';
import path from 'node:path';
import { interfaceDescriptionFor } from '../../../shared/src/openapi';
import { MemoryKeys } from '../../test/support/stage-app';
import { LookupGate } from '../accounts/lookup-gate';
import { MemoryLimiter } from '../limits/memory-limiter';
import type { PetsProxy } from '../upstream/pets-proxy';
import type { V1Locals } from './locals';
import { v1Stages, type V1Stage } from './stages';

const ARCHITECTURE = path.join(__dirname, '..', '..', '..', 'docs', 'architecture.md');

/** The bold names of the numbered list in docs/architecture.md's section on the `/v1` request. */
function stagesInThePage(): string[] {
  const page = readFileSync(ARCHITECTURE, 'utf8');
  const section = page.split(/^## /m).find((part) => part.startsWith('A request to `/v1`'));
  if (!section) throw new Error('docs/architecture.md has no section "A request to `/v1`"');
  return [...section.matchAll(/^\d+\. \*\*(.+?)\*\*/gm)].map((match) => match[1]!);
}

let keys: MemoryKeys;
let limiter: MemoryLimiter;
let stages: readonly V1Stage[];
beforeAll(() => {
  keys = new MemoryKeys();
  limiter = new MemoryLimiter({ threshold: 100, seconds: 60 });
  stages = v1Stages({
    config: { bodyTimeoutMs: 1_000, internalJwtSecret: 'x'.repeat(32), trustProxy: false, apiEnvironment: 'production', publicBaseUrl: undefined, corsOrigins: [], preflightPerMinute: 600, anonIpv6PrefixLength: 56 },
    keys: keys.resolver,
    lookups: new LookupGate({ perClientPerMinute: 10, queuedPerSecond: 10 }),
    limits: { limiter, anonPerMinute: 10, anonIpv6PrefixLength: 56, onDecision: () => undefined },
    document: interfaceDescriptionFor(undefined),
    // Never called: the proxy stage only closes over it.
    petsProxy: {} as PetsProxy,
    operatorMiddleware: [],
  });
});
afterAll(() => {
  keys.close();
  limiter.close();
});

describe('the /v1 stage list (pipeline/stages.ts)', () => {
  it('when docs/architecture.md lists the stages, then it names every one, in the order app.ts mounts them', () => {
    expect(stagesInThePage()).toEqual(stages.map(({ name }) => name));
  });

  it('when a stage reads a field of res.locals, then an earlier stage sets it', () => {
    const set = new Set<keyof V1Locals>();
    const unset: string[] = [];
    for (const { name, reads, writes } of stages) {
      for (const field of reads) if (!set.has(field)) unset.push(`${name} reads ${field}`);
      for (const field of writes) set.add(field);
    }
    expect(unset).toEqual([]);
  });

  it('when a setting is off, then its stage has no middleware, and the stages every request needs always have theirs', () => {
    const off = stages.filter(({ middleware }) => middleware.length === 0).map(({ name }) => name);
    expect(off).toEqual(['absolute links', 'browsers', "the operator's middleware"]);
  });
});
