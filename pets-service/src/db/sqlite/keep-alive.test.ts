import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { tempDir } from '../../../test/support';
import { createSqlitePetRepository } from '../../pets/sqlite-pet-repository';
import { openSqliteDatabase } from './database';

// A GC on demand, without starting jest with --expose-gc.
v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

async function collectAndSettle(): Promise<void> {
  for (let round = 0; round < 4; round++) {
    collectGarbage();
    await new Promise((resolve) => setTimeout(resolve, 10)); // finalization callbacks run after the GC
  }
}

let dir: string;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('better-sqlite3 objects are kept for the life of the process (keep-alive.ts: a collected one aborts Node ≥ 24.19)', () => {
  it('when the service store is opened, migrated, used and closed, then none of its Database or Statement objects is ever collected, and db.pragma is never called', async () => {
    const collected: string[] = [];
    const registry = new FinalizationRegistry<string>((what) => collected.push(what));
    registry.register({}, 'a control object'); // proves this GC and registry do report collections
    const prepare = jest.spyOn(Database.prototype, 'prepare');
    const pragma = jest.spyOn(Database.prototype, 'pragma');
    try {
      await (async () => {
        const { db } = openSqliteDatabase(path.join(dir, 'pets.db'));
        const pets = createSqlitePetRepository(db);
        await pets.insert({ name: 'Rex', categoryId: 1, status: 'sold' });
        await pets.findById(1);
        await pets.page({ afterId: 0, limit: 20 });
        await pets.page({ afterId: 0, limit: 20, status: 'sold' });
        registry.register(db, 'the Database');
        for (const [index, result] of prepare.mock.results.entries()) registry.register(result.value as object, `statement ${String(prepare.mock.calls[index]?.[0])}`);
        db.close();
      })();
      prepare.mockClear(); // the spy's records would keep the statements alive themselves
      await collectAndSettle();
      expect(collected).toEqual(['a control object']);
      expect(pragma).not.toHaveBeenCalled();
    } finally {
      prepare.mockRestore();
      pragma.mockRestore();
    }
  });
});
