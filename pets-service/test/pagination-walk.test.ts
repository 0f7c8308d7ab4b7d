import fc from 'fast-check';
import request from 'supertest';
import type { Pet, PetStatus } from '../../shared/src/pets';
import { PET_STATUSES } from '../../shared/src/pets';
import { describeEachEngine, startTestService, type TestPetsService } from './support';

/** Follows `rel="next"` links from the first page to the last, as a client would. */
async function walk(pets: TestPetsService, firstQuery: string): Promise<Pet[]> {
  return (await walkPages(pets, firstQuery)).flat();
}

async function walkPages(pets: TestPetsService, firstQuery: string): Promise<Pet[][]> {
  const seen: Pet[][] = [];
  let path: string | undefined = `/pets${firstQuery}`;
  for (let pages = 0; path !== undefined; pages++) {
    if (pages > 1000) throw new Error('the walk does not end');
    const res: request.Response = await request(pets.app).get(path).set('Authorization', pets.auth);
    expect(res.status).toBe(200);
    seen.push(res.body as Pet[]);
    const next = /^<(\/pets\?[^>]+)>; rel="next"$/.exec(res.headers.link ?? '')?.[1];
    path = next;
  }
  return seen;
}

describeEachEngine('walking the pages', (engine) => {
  let pets: TestPetsService;
  let stored: Pet[];

  beforeAll(async () => {
    pets = await startTestService({ engine });
    stored = await pets.seed(
      Array.from({ length: 47 }, (_, i) => ({ name: `walker-${i}`, categoryId: 1 + i, status: PET_STATUSES[(i * 7) % 3] })),
    );
  });
  afterAll(() => pets.close());

  it('when following every next link without a filter, then every stored pet comes exactly once, in id order', async () => {
    expect(await walk(pets, '?limit=5')).toEqual(stored);
  });

  it('when following every next link with a status filter, then every pet of that status comes exactly once', async () => {
    for (const status of PET_STATUSES) {
      expect(await walk(pets, `?limit=4&status=${status}`)).toEqual(stored.filter((pet) => pet.status === status));
    }
  });

  it('when the page size divides the count exactly, then the walk ends without an empty page', async () => {
    const exact = await startTestService({ engine });
    try {
      await exact.seed(Array.from({ length: 6 }, (_, i) => ({ name: `exact-${i}`, categoryId: 1 })));
      expect((await walkPages(exact, '?limit=3')).map((page) => page.length)).toEqual([3, 3]);
    } finally {
      await exact.close();
    }
  });
});

describeEachEngine('walking the pages, for any stored set, page size and filter', (engine) => {
  const arbitraryCase = fc.record({
    statuses: fc.array(fc.constantFrom(...PET_STATUSES), { maxLength: 25 }),
    limit: fc.integer({ min: 1, max: 8 }),
    filter: fc.option(fc.constantFrom<PetStatus>(...PET_STATUSES), { nil: undefined }),
  });

  it('when walking from the first page, then the pages together are exactly the matching pets in id order', async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryCase, async ({ statuses, limit, filter }) => {
        const pets = await startTestService({ engine });
        try {
          const stored = await pets.seed(statuses.map((status, i) => ({ name: `p${i}`, categoryId: 1, status })));
          const query = `?limit=${limit}${filter ? `&status=${filter}` : ''}`;
          expect(await walk(pets, query)).toEqual(stored.filter((pet) => filter === undefined || pet.status === filter));
        } finally {
          await pets.close();
        }
      }),
      { numRuns: 30 },
    );
  });
});
