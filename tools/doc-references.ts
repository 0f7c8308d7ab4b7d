import { readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * What the docs point a reader at, checked against the tree: every file a page names in backticks,
 * and every test that docs/security.md names as the proof of a mitigation (`file › words of its name`).
 */

const SKIPPED_DIRECTORIES = new Set(['node_modules', 'dist', 'coverage', 'generated', '.git', 'data']);

/** A backticked name of a source or doc file: with a folder (`portal/forms.ts`) or bare (`forms.ts`); no package (`@x/y`) or URL path. */
const FILE_NAME = /^[\w.*-]+(?:\/[\w.*-]+)*\.(?:ts|mjs|cjs|js|md|yml|yaml|sh)$/;

/** Where the pages' shorter paths start: `accounts/…` is under gateway/src, `http/…` under pets-service/src. */
const PATH_BASES = ['', 'gateway/src', 'gateway', 'pets-service/src', 'pets-service', 'shared/src', 'client/src', 'client', 'docs'];

/** Every file under `root` (relative, with `/`), skipping built, installed and runtime folders. */
export function repositoryFiles(root: string): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(entry.name)) walk(relative);
      } else files.push(relative);
    }
  };
  walk('');
  return files;
}

function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
}

/** The backticked file names of `text` that no file of `files` answers to (by its path from a base, or by its bare name). */
export function missingFiles(text: string, files: readonly string[]): string[] {
  const names = new Set(files.map((file) => path.posix.basename(file)));
  const missing: string[] = [];
  for (const [, token] of text.matchAll(/`([^`\n]+)`/g)) {
    const name = token!.split(' › ')[0]!.trim();
    if (!FILE_NAME.test(name)) continue;
    const found = name.includes('/')
      ? PATH_BASES.some((base) => {
          const pattern = globToRegExp(base ? `${base}/${name}` : name);
          return files.some((file) => pattern.test(file));
        })
      : [...names].some((file) => globToRegExp(name).test(file));
    if (!found) missing.push(name);
  }
  return [...new Set(missing)];
}

/** The string literals of a test file, escapes read: test names and the values `it.each` puts into them. */
function stringLiterals(source: string): string[] {
  return [...source.matchAll(/'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`/g)].map((match) => (match[1] ?? match[2] ?? match[3]!).replace(/\\(.)/g, '$1'));
}

/**
 * Whether `words` (a page's quote of a test's name; `…` elides) are in `source`: in a test name as
 * written, or in one whose `%s`-style placeholder is filled with one of the file's literals.
 */
export function namesTest(source: string, words: string): boolean {
  const literals = stringLiterals(source);
  const templates = literals.filter((literal) => /%[sdijpo#]|\$\w/.test(literal));
  const expansions = templates.flatMap((template) => literals.map((value) => template.replace(/%[sdijpo#]|\$\w+/g, value)));
  const texts = [...literals, ...expansions];
  return words
    .split('…')
    .map((part) => part.trim())
    .filter(Boolean)
    .every((part) => texts.some((text) => text.includes(part)));
}

/** docs/security.md's proofs (`file` and each `› words` after it) that name no file, or no test in it. */
export function missingProofs(page: string, read: (file: string) => string | undefined): string[] {
  const missing: string[] = [];
  for (const row of page.split('\n').filter((line) => line.startsWith('|'))) {
    const cells = row.split('|');
    const checkedBy = cells[cells.length - 2] ?? '';
    let file: string | undefined;
    for (const [, token] of checkedBy.matchAll(/`([^`]+)`/g)) {
      const [head, words] = token!.startsWith('› ') ? [undefined, token!.slice(2)] : token!.split(' › ');
      if (head !== undefined) {
        if (!head.includes('/')) continue;
        file = head;
        if (read(file) === undefined) {
          missing.push(`${file}: no such file`);
          file = undefined;
          continue;
        }
      }
      if (words === undefined) continue;
      const source = file && read(file);
      if (!source) missing.push(`› ${words}: no file named before it`);
      else if (!namesTest(source, words)) missing.push(`${file} › ${words}: no test of that name`);
    }
  }
  return missing;
}
