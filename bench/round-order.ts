/**
 * The order in which one round of the bench runs its scenarios.
 *
 * A fixed order gives every scenario the same neighbour in every round, so whatever a scenario
 * leaves behind is always paid by the same next one: an A/A run (`--baseline` of this very build)
 * read the same code × 0.65–0.80 dearer in one slot than in another. Each turn (a round of a run)
 * therefore starts one scenario further on, so that over the rounds and runs every scenario takes
 * every place. The traced gateway's scenarios stay at the end of each round: its exports and
 * collection go on after its own load ends, and the pause before the next measurement
 * (`waitUntilQuiet` in measure.ts) waits that out once per round instead of inside it.
 */
export function roundOrder<T extends { target: string }>(scenarios: readonly T[], turn: number): T[] {
  const last = scenarios.filter((s) => s.target === 'gateway-traced');
  const rotating = scenarios.filter((s) => s.target !== 'gateway-traced');
  if (rotating.length === 0) return [...last];
  const start = ((turn % rotating.length) + rotating.length) % rotating.length;
  return [...rotating.slice(start), ...rotating.slice(0, start), ...last];
}
