import { readFileSync } from 'node:fs';
import path from 'node:path';
import { compileFunction } from 'node:vm';
import { PATCHES, patchedText } from '../../bench/patched-build';
import { ROOT } from '../helpers/processes';

/**
 * The bisection variants of `bench/patched-build.ts` patch the compiled gateway by replacing text:
 * each must still fit the build as it is, or `bench/gc.ts --variant` and `bench/instructions.ts`
 * stop with the patch that no longer fits (and a bisection is what one runs when it is needed).
 */
describe('the bench variants', () => {
  it.each(Object.entries(PATCHES))('%s fits this build', (_name, { patches }) => {
    for (const patch of patches) {
      const text = readFileSync(path.join(ROOT, 'dist', patch.file), 'utf8');
      const patched = patchedText(text, patch);
      expect(patched).toContain(patch.replace);
      // Still JavaScript: a patch that broke the file would stop the copy's gateway at start.
      expect(() => compileFunction(patched, ['exports', 'require', 'module', '__filename', '__dirname'])).not.toThrow();
    }
  });
});
