/**
 * The order in which one round of the bench runs its scenarios.
 *
 * A fixed order gives every scenario the same neighbour in every round, so whatever a scenario
 * leaves behind is always paid by the same next one: an A/A run (`--baseline` of this very build)
 * read the same code × 0.65–0.80 dearer in one slot than in another. Turning the order round by
 * one place a round would not help (each scenario still follows the same one), so every turn (a
 * round of a run) after the first runs them in an order shuffled from the turn's number: the
 * same on every bench, and over the turns each scenario follows a different mix of others. The
 * traced gateway's scenarios stay at the end of each round: its exports and collection go on after
 * its own load ends, and the pause before the next measurement (`waitUntilQuiet` in measure.ts)
 * waits that out once per round instead of inside it.
 */
export function roundOrder<T extends { target: string }>(scenarios: readonly T[], turn: number): T[] {
  const last = scenarios.filter((s) => s.target === 'gateway-traced');
  const shuffled = scenarios.filter((s) => s.target !== 'gateway-traced');
  if (turn > 0) {
    const random = mulberry32(turn);
    // Fisher–Yates.
    for (let i = shuffled.length - 1; i > 0; i -= 1) {
      const j = Math.floor(random() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
  }
  return [...shuffled, ...last];
}

/** A small seeded generator (mulberry32): the bench's orders are the same on every run of it. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
