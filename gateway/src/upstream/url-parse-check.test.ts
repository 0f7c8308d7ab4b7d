import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../../../test/helpers/processes';

const run = promisify(execFile);
const COMPILED = path.join(ROOT, 'dist/gateway/src/upstream/url-parse-check.js');

/** The stderr of a fresh Node that calls `url.parse` from outside node_modules, after `before`. */
async function stderrOfParse(before: string): Promise<string> {
  const { stderr } = await run(process.execPath, ['-e', `${before}; require('node:url').parse('/pets?limit=20');`], { cwd: ROOT });
  return stderr;
}

describe('settleUrlParseDeprecation', () => {
  it('when settled, then url.parse counts its deprecation warning as given: nothing is printed then or later', async () => {
    // The control: a Node that warns about url.parse (24 does; 20 does not) prints DEP0169 here.
    const control = await stderrOfParse('');
    const settled = await stderrOfParse(`require(${JSON.stringify(COMPILED)}).settleUrlParseDeprecation()`);
    expect({ settled: settled.includes('DEP0169'), controlWarns: control.includes('DEP0169') }).toEqual({
      settled: false,
      controlWarns: Number(process.versions.node.split('.')[0]) >= 24,
    });
  });
});
