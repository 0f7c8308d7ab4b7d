import { ROOT } from '../tools/compiled';
import { parseOptions } from './options';

describe('bench options', () => {
  it('when BENCH_BASELINE_NODE_OPTIONS is set with --baseline, then the baseline gateway gets those flags, one each', () => {
    const options = parseOptions(['--baseline', ROOT], { BENCH_BASELINE_NODE_OPTIONS: ' --max-semi-space-size=64  --stack-size=2000 ' });
    expect(options.baselineNodeOptions).toEqual(['--max-semi-space-size=64', '--stack-size=2000']);
  });

  it('when BENCH_BASELINE_NODE_OPTIONS is set without --baseline, then nothing gets them (there is no baseline gateway)', () => {
    expect(parseOptions([], { BENCH_BASELINE_NODE_OPTIONS: '--max-semi-space-size=64' }).baselineNodeOptions).toBeUndefined();
  });
});
