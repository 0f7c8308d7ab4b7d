import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './compiled';
import { CHECKED_ROOTS, importCycles, importGraph, typeScriptFiles } from './import-cycles';

/** Run by `npm run lint` too: a circle among the modules fails it, named file by file. */
describe('import circles', () => {
  it('when the repository is read, then no module imports itself through others (type-only imports and re-exports included)', () => {
    const files = typeScriptFiles(CHECKED_ROOTS.map((root) => path.join(ROOT, root)));
    expect(files.length).toBeGreaterThan(100);
    const rings = importCycles(importGraph(files)).map((ring) => ring.map((file) => path.relative(ROOT, file)).join(' → '));
    expect(rings).toEqual([]);
  });

  describe('the check itself', () => {
    let dir: string;
    const write = (name: string, text: string) => {
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      writeFileSync(path.join(dir, name), text);
    };
    const ringsIn = () => importCycles(importGraph(typeScriptFiles([dir]))).map((ring) => ring.map((file) => path.relative(dir, file)));

    beforeEach(() => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'import-cycles-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('when two modules import each other, one only for a type, then the circle is found', () => {
      write('a.ts', "import type { B } from './b';\nexport type A = B;\n");
      write('b.ts', "import { c } from './dir';\nexport { a } from './a.js';\nexport type B = number;\n");
      write('dir/index.ts', 'export const c = 1;\n');
      expect(ringsIn()).toEqual([['a.ts', 'b.ts', 'a.ts']]);
    });

    it('when imports only go one way, or look like imports inside comments and strings, then no circle is found', () => {
      write('a.ts', "import { b } from './b';\nexport const a = b;\n");
      write('b.ts', "// import { a } from './a';\nexport const b = \"import { a } from './a'\";\n");
      expect(ringsIn()).toEqual([]);
    });
  });
});
