const Sequencer = require('@jest/test-sequencer').default;

/**
 * The files that take longest start first. A clean clone (CI) has no timing cache, and jest then
 * orders files by size: a two-minute file that mostly waits (the client against a saturated key)
 * could start last and hold the run open alone. Started first, its waiting overlaps the other files.
 * The rest keep jest's own order (the cache's durations when there is one).
 */
const SLOWEST_FIRST = [
  'test/e2e/client/rate-limit.test.ts',
  'test/e2e/bench-quick.test.ts',
  'test/e2e/portal-browser.test.ts',
  'gateway/test/account-store-cluster.test.ts',
  'test/e2e/key-lookup-flood.test.ts',
  'test/e2e/gateway-workers.test.ts',
  'test/typecheck.test.ts',
  'test/e2e/key-lifecycle.test.ts',
  'test/image.test.ts',
];

class SlowestFirst extends Sequencer {
  sort(tests) {
    const rank = (test) => {
      const index = SLOWEST_FIRST.findIndex((file) => test.path.endsWith(`/${file}`));
      return index < 0 ? SLOWEST_FIRST.length : index;
    };
    const sorted = super.sort(tests);
    const ordered = Array.isArray(sorted) ? sorted : [];
    return ordered.map((test, position) => ({ test, position })).sort((a, b) => rank(a.test) - rank(b.test) || a.position - b.position).map(({ test }) => test);
  }
}

module.exports = SlowestFirst;
