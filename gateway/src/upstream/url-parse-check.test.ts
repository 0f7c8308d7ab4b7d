import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';

const run = promisify(execFile);

/** The stderr of a fresh Node that calls `url.parse` from outside node_modules, after `before`. */
async function stderrOfParse(before: string): Promise<string> {
  const { stderr } = await run(process.execPath, ['-e', `${before}; require('node:url').parse('/pets?limit=20');`]);
  return stderr;
}

describe('settleUrlParseDeprecation', () => {
  // The module as the build would emit it (transpiled here, so this unit test needs no dist/), in a
  // folder outside node_modules, loaded by a fresh Node: the deprecation state is per process.
  let folder: string;
  let compiled: string;
  beforeAll(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'url-parse-check-'));
    compiled = path.join(folder, 'url-parse-check.js');
    const source = readFileSync(path.join(__dirname, 'url-parse-check.ts'), 'utf8');
    writeFileSync(compiled, ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText);
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('when settled, then url.parse counts its deprecation warning as given: nothing is printed then or later', async () => {
    // The control: a Node that warns about url.parse (24 does; 20 does not) prints DEP0169 here.
    const control = await stderrOfParse('');
    const settled = await stderrOfParse(`require(${JSON.stringify(compiled)}).settleUrlParseDeprecation()`);
    expect({ settled: settled.includes('DEP0169'), controlWarns: control.includes('DEP0169') }).toEqual({
      settled: false,
      controlWarns: Number(process.versions.node.split('.')[0]) >= 24,
    });
  });
});
