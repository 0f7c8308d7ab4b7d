import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './compiled';
import { missingFiles, missingProofs, namesTest, repositoryFiles } from './doc-references';

/** The pages a newcomer reads (the ADRs are records of their time and may name files since gone). */
const PAGES = ['README.md', 'docs/architecture.md', 'docs/security.md', 'docs/extending.md', 'docs/operations.md', 'docs/rate-limiting.md', 'docs/scaling.md', 'docs/performance.md'];

describe('what the docs point at', () => {
  const files = repositoryFiles(ROOT);

  it.each(PAGES)('when %s is read, then every file it names in backticks exists', (page) => {
    expect(missingFiles(readFileSync(path.join(ROOT, page), 'utf8'), files)).toEqual([]);
  });

  it("when docs/security.md names the test that checks a mitigation, then that file holds a test of that name", () => {
    const read = (file: string) => {
      const full = path.join(ROOT, file);
      if (!existsSync(full)) return undefined;
      return statSync(full).isFile() ? readFileSync(full, 'utf8') : '';
    };
    expect(missingProofs(readFileSync(path.join(ROOT, 'docs/security.md'), 'utf8'), read)).toEqual([]);
  });

  describe('the checks themselves', () => {
    it('when a page names a file that is not there, by path, glob or bare name, then it is reported', () => {
      const tree = ['gateway/src/portal/forms.ts', 'gateway/test/webhook-sender.test.ts'];
      expect(missingFiles('`portal/forms.ts`, `forms.ts`, `gateway/test/webhook*.test.ts`, `@zxcvbn-ts/core`, `data/pets.db`', tree)).toEqual([]);
      expect(missingFiles('`portal/gone.ts`, `gone.ts`, `gateway/test/mail*.test.ts`', tree)).toEqual(['portal/gone.ts', 'gone.ts', 'gateway/test/mail*.test.ts']);
    });

    it('when a page quotes a test name, then it must be in the file, escapes read, placeholders filled from the file, ellipses skipped', () => {
      const source = "it('when the page\\'s own origin posts, then 413', …);\nit.each([['a variation selector', 'x']])('when an email holds %s, then it is refused', …);\nit('when one, then two and three', …);";
      expect(namesTest(source, "page's own origin")).toBe(true);
      expect(namesTest(source, 'an email holds a variation selector')).toBe(true);
      expect(namesTest(source, 'when one … and three')).toBe(true);
      expect(namesTest(source, 'an email holds a soft hyphen')).toBe(false);
      expect(missingProofs('| a | b | `x.test.ts` |\n| a | b | `gateway/x.test.ts › when one`, `› four` |', () => "it('when one', …)")).toEqual(['gateway/x.test.ts › four: no test of that name']);
    });
  });
});
