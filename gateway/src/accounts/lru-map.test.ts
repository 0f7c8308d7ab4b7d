import fc from 'fast-check';
import { LruMap } from './lru-map';

describe('LruMap', () => {
  it('when more entries than maxEntries are set, then the least recently used ones are evicted and counted', () => {
    const map = new LruMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    map.set('c', 3);
    expect([map.peek('a'), map.peek('b'), map.peek('c')]).toEqual([undefined, 2, 3]);
    expect(map.size).toBe(2);
    expect(map.evictions).toBe(1);
  });

  it('when an entry is read with get, then it becomes the most recent and survives the next eviction', () => {
    const map = new LruMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    expect(map.get('a')).toBe(1);
    map.set('c', 3);
    expect([map.peek('a'), map.peek('b'), map.peek('c')]).toEqual([1, undefined, 3]);
  });

  it('when an entry is read with peek, then its place in the order does not change', () => {
    const map = new LruMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    expect(map.peek('a')).toBe(1);
    map.set('c', 3);
    expect(map.peek('a')).toBeUndefined();
  });

  it('when an existing key is set again, then its value is replaced, it becomes the most recent and nothing is evicted', () => {
    const map = new LruMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    map.set('a', 10);
    expect(map.evictions).toBe(0);
    map.set('c', 3);
    expect([map.peek('a'), map.peek('b')]).toEqual([10, undefined]);
  });

  it('when an entry is evicted, then onEvict hears its key and value; delete and clear are not evictions', () => {
    const evicted: [string, number][] = [];
    const map = new LruMap<string, number>(2, (key, value) => evicted.push([key, value]));
    map.set('a', 1);
    map.set('b', 2);
    map.delete('b');
    map.set('c', 3);
    map.set('d', 4);
    map.clear();
    expect(evicted).toEqual([['a', 1]]);
  });

  it('when maxEntries is not a positive integer, then construction is refused', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => new LruMap(bad)).toThrow(RangeError);
  });

  it('when any sequence of operations runs, then the map never exceeds its bound and agrees with a reference model', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key: fc.nat(9), value: fc.integer() }),
      fc.record({ kind: fc.constant('get' as const), key: fc.nat(9) }),
      fc.record({ kind: fc.constant('delete' as const), key: fc.nat(9) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(op, { maxLength: 100 }), (max, ops) => {
        const map = new LruMap<number, number>(max);
        // The model: keys from least to most recently used.
        let order: [number, number][] = [];
        for (const step of ops) {
          if (step.kind === 'set') {
            order = [...order.filter(([k]) => k !== step.key), [step.key, step.value]];
            if (order.length > max) order = order.slice(order.length - max);
            map.set(step.key, step.value);
          } else if (step.kind === 'get') {
            const found = order.find(([k]) => k === step.key);
            if (found) order = [...order.filter(([k]) => k !== step.key), found];
            expect(map.get(step.key)).toBe(found?.[1]);
          } else {
            order = order.filter(([k]) => k !== step.key);
            map.delete(step.key);
          }
          expect(map.size).toBeLessThanOrEqual(max);
        }
        expect([...map.values()]).toEqual(order.map(([, v]) => v));
      }),
    );
  });
});
