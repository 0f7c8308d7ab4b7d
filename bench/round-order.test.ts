import { roundOrder } from './round-order';

const s = (target: string, request = 'list') => ({ id: `${target}/${request}`, target });
const scenarios = [
  s('direct'),
  s('hop'),
  s('express-hop'),
  s('express-hop-redis'),
  s('express-hop-raw-redis'),
  s('gateway-redis'),
  s('gateway-redis', 'refused'),
  s('gateway-baseline'),
  s('gateway-baseline', 'refused'),
  s('gateway-traced'),
];
const ids = (list: { id: string }[]) => list.map((x) => x.id);
/** The scenario run right before `id` in a turn's order (undefined: it ran first). */
const before = (turn: number, id: string) => {
  const order = ids(roundOrder(scenarios, turn));
  return order[order.indexOf(id) - 1];
};

describe('roundOrder', () => {
  it('runs the declared order first, then other orders, the same for the same turn', () => {
    expect(ids(roundOrder(scenarios, 0))).toEqual(ids(scenarios));
    expect(ids(roundOrder(scenarios, 1))).not.toEqual(ids(scenarios));
    expect(ids(roundOrder(scenarios, 3))).toEqual(ids(roundOrder(scenarios, 3)));
  });

  it('gives a scenario different neighbours over the turns of a bench (six: three runs of two rounds)', () => {
    for (const id of ['gateway-redis/list', 'gateway-baseline/list', 'express-hop/list']) {
      const predecessors = new Set([0, 1, 2, 3, 4, 5].map((turn) => before(turn, id)));
      expect(predecessors.size).toBeGreaterThanOrEqual(3);
    }
  });

  it('keeps the traced gateway last and runs every scenario once per round', () => {
    for (let turn = 0; turn < 12; turn += 1) {
      const order = roundOrder(scenarios, turn);
      expect(order.at(-1)!.id).toBe('gateway-traced/list');
      expect([...ids(order)].sort()).toEqual([...ids(scenarios)].sort());
    }
  });

  it('handles a round with no traced gateway and one with only it', () => {
    expect([...ids(roundOrder([s('hop'), s('direct')], 1))].sort()).toEqual(['direct/list', 'hop/list']);
    expect(ids(roundOrder([s('gateway-traced')], 3))).toEqual(['gateway-traced/list']);
  });
});
