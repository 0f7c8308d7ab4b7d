import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseOptions } from './options';

describe('bench options', () => {
  // A checkout with a built gateway, as --baseline wants it (not this one: it may not be built).
  let checkout: string;
  beforeAll(() => {
    checkout = mkdtempSync(path.join(os.tmpdir(), 'bench-baseline-'));
    mkdirSync(path.join(checkout, 'dist/gateway/src'), { recursive: true });
    writeFileSync(path.join(checkout, 'dist/gateway/src/main.js'), '');
  });
  afterAll(() => rmSync(checkout, { recursive: true, force: true }));

  it('when BENCH_BASELINE_NODE_OPTIONS is set with --baseline, then the baseline gateway gets those flags, one each', () => {
    const options = parseOptions(['--baseline', checkout], { BENCH_BASELINE_NODE_OPTIONS: ' --max-semi-space-size=64  --stack-size=2000 ' });
    expect(options.baselineNodeOptions).toEqual(['--max-semi-space-size=64', '--stack-size=2000']);
  });

  it('when BENCH_BASELINE_NODE_OPTIONS is set without --baseline, then nothing gets them (there is no baseline gateway)', () => {
    expect(parseOptions([], { BENCH_BASELINE_NODE_OPTIONS: '--max-semi-space-size=64' }).baselineNodeOptions).toBeUndefined();
  });
});
