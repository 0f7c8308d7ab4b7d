import { roundOrder } from './round-order';

const s = (target: string, request = 'list') => ({ id: `${target}/${request}`, target });
const scenarios = [s('direct'), s('express-hop'), s('gateway-redis'), s('gateway-redis', 'refused'), s('gateway-traced')];
const ids = (list: { id: string }[]) => list.map((x) => x.id);

describe('roundOrder', () => {
  it('starts each turn one scenario further on, so that every scenario takes every place', () => {
    expect(ids(roundOrder(scenarios, 0))).toEqual(['direct/list', 'express-hop/list', 'gateway-redis/list', 'gateway-redis/refused', 'gateway-traced/list']);
    expect(ids(roundOrder(scenarios, 1))).toEqual(['express-hop/list', 'gateway-redis/list', 'gateway-redis/refused', 'direct/list', 'gateway-traced/list']);
    const firsts = [0, 1, 2, 3].map((turn) => roundOrder(scenarios, turn)[0]!.id);
    expect(new Set(firsts).size).toBe(4);
    expect(ids(roundOrder(scenarios, 4))).toEqual(ids(roundOrder(scenarios, 0)));
  });

  it('keeps the traced gateway last and runs every scenario once per round', () => {
    for (let turn = 0; turn < 6; turn += 1) {
      const order = roundOrder(scenarios, turn);
      expect(order.at(-1)!.id).toBe('gateway-traced/list');
      expect([...ids(order)].sort()).toEqual([...ids(scenarios)].sort());
    }
  });

  it('handles a round with no traced gateway and one with only it', () => {
    expect(ids(roundOrder([s('hop'), s('direct')], 1))).toEqual(['direct/list', 'hop/list']);
    expect(ids(roundOrder([s('gateway-traced')], 3))).toEqual(['gateway-traced/list']);
  });
});
