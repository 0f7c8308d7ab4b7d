import { MAX_CATEGORY_ID } from '../../shared/src/openapi';
import type { NewPet, Pet } from '../../shared/src/pets';
import { DatabaseUnavailableError } from '../src/db/unavailable';
import type { PetRepository } from '../src/pets/pet-repository';

/** A repository on a fresh, empty store, with the means to act on that store behind its back. */
export interface RepositoryHarness {
  readonly repository: PetRepository;
  /** Deletes every pet with another connection, as an operator might. */
  removeAll(): Promise<void>;
  /** Another connection inserts a pet in a transaction it keeps open until `commit()`. */
  holdUncommittedCreate(pet: Required<NewPet>): Promise<{ id: number; commit(): Promise<void> }>;
  close(): Promise<void>;
}

const pet = (name: string, extra: Partial<NewPet> = {}): Required<NewPet> => ({ name, categoryId: 1, status: 'available', ...extra });

/** What every `PetRepository` promises (see its interface), run against each engine by `pet-repository.test.ts`. */
export function petRepositoryContract(engine: string, open: () => Promise<RepositoryHarness>): void {
  describe(`PetRepository contract, on ${engine}`, () => {
    let store: RepositoryHarness;
    let repository: PetRepository;
    beforeEach(async () => {
      store = await open();
      repository = store.repository;
    });
    afterEach(() => store.close());

    async function insertAll(pets: Required<NewPet>[]): Promise<Pet[]> {
      const created: Pet[] = [];
      for (const one of pets) created.push(await repository.insert(one));
      return created;
    }

    it('when a pet is inserted, then it comes back with a positive safe integer id and exactly the values given', async () => {
      const created = await repository.insert({ name: '🐶 Rex «le chien»', categoryId: MAX_CATEGORY_ID, status: 'pending' });
      expect(created).toEqual({ id: expect.any(Number), name: '🐶 Rex «le chien»', categoryId: MAX_CATEGORY_ID, status: 'pending' });
      expect(Number.isSafeInteger(created.id) && created.id > 0).toBe(true);
      expect(await repository.findById(created.id)).toEqual(created);
    });

    it('when pets are inserted one after another, then ids start at 1 and increase by one', async () => {
      const created = await insertAll([pet('a'), pet('b'), pet('c')]);
      expect(created.map((one) => one.id)).toEqual([1, 2, 3]);
    });

    it('when the pets with the highest ids are removed, then a new pet still gets a higher id: ids are never reused', async () => {
      const [, last] = await insertAll([pet('a'), pet('b')]);
      await store.removeAll();
      const next = await repository.insert(pet('c'));
      expect(next.id).toBeGreaterThan(last!.id);
      expect(await repository.findById(last!.id)).toBeUndefined();
    });

    it('when many pets are inserted at once, then every one gets its own id and all are found', async () => {
      const created = await Promise.all(Array.from({ length: 40 }, (_, i) => repository.insert(pet(`concurrent-${i}`))));
      const ids = created.map((one) => one.id);
      expect(new Set(ids).size).toBe(40);
      expect(await repository.page({ afterId: 0, limit: 100 })).toEqual([...created].sort((a, b) => a.id - b.id));
    });

    it('when no pet has the id, then findById gives undefined, up to the largest safe integer', async () => {
      await repository.insert(pet('a'));
      expect(await repository.findById(2)).toBeUndefined();
      expect(await repository.findById(Number.MAX_SAFE_INTEGER)).toBeUndefined();
    });

    it('when a page is asked, then it holds up to limit pets after afterId, in id order', async () => {
      const created = await insertAll(Array.from({ length: 7 }, (_, i) => pet(`p${i}`)));
      expect(await repository.page({ afterId: 0, limit: 3 })).toEqual(created.slice(0, 3));
      expect(await repository.page({ afterId: created[2]!.id, limit: 3 })).toEqual(created.slice(3, 6));
      expect(await repository.page({ afterId: created[5]!.id, limit: 3 })).toEqual(created.slice(6));
      expect(await repository.page({ afterId: created[6]!.id, limit: 3 })).toEqual([]);
      expect(await repository.page({ afterId: Number.MAX_SAFE_INTEGER, limit: 3 })).toEqual([]);
    });

    it('when a page is asked with a status, then only pets with that status come, in id order', async () => {
      const created = await insertAll([pet('a', { status: 'sold' }), pet('b'), pet('c', { status: 'sold' }), pet('d', { status: 'pending' }), pet('e', { status: 'sold' })]);
      const sold = created.filter((one) => one.status === 'sold');
      expect(await repository.page({ afterId: 0, limit: 10, status: 'sold' })).toEqual(sold);
      expect(await repository.page({ afterId: sold[0]!.id, limit: 1, status: 'sold' })).toEqual([sold[1]]);
      expect(await repository.page({ afterId: 0, limit: 10, status: 'pending' })).toEqual([created[3]]);
    });

    it('when another connection holds a create uncommitted, then a new create never becomes visible before it', async () => {
      const held = await store.holdUncommittedCreate(pet('held'));
      // The new create waits for the held one (PostgreSQL) or gives up at once as busy (SQLite); either
      // way no reader may see it, or any id after the held one, while the held one is invisible.
      const pending = repository.insert(pet('later')).then(
        (created) => ({ created }),
        (error: unknown) => ({ error }),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await repository.page({ afterId: 0, limit: 10 })).toEqual([]);
      await held.commit();

      const outcome = await pending;
      const visible = await repository.page({ afterId: 0, limit: 10 });
      if ('created' in outcome) {
        expect(outcome.created.id).toBeGreaterThan(held.id);
        expect(visible.map((one) => one.id)).toEqual([held.id, outcome.created.id]);
      } else {
        expect(outcome.error).toBeInstanceOf(DatabaseUnavailableError);
        expect(visible.map((one) => one.id)).toEqual([held.id]);
      }
    });
  });
}
