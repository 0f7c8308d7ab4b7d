import { fingerprintOf } from './fingerprint';

describe('fingerprintOf: the same JSON value, the same fingerprint', () => {
  it('when objects differ only in member order, at any depth, then their fingerprints are equal', () => {
    expect(fingerprintOf(JSON.parse('{"a":1,"b":{"c":[1,{"d":2,"e":3}],"f":"x"}}'))).toBe(fingerprintOf(JSON.parse('{"b":{"f":"x","c":[1,{"e":3,"d":2}]},"a":1}')));
  });

  it('when a value changes anywhere (array order, a type, a nested member, a member added), then the fingerprint changes', () => {
    const base = fingerprintOf({ a: [1, 2], b: { c: '1' } });
    for (const other of [{ a: [2, 1], b: { c: '1' } }, { a: [1, 2], b: { c: 1 } }, { a: [1, 2], b: { c: '1', d: null } }, { a: [1, 2] }, [{ a: [1, 2], b: { c: '1' } }]]) {
      expect(fingerprintOf(other)).not.toBe(base);
    }
  });

  it('when a member name or string holds the characters that delimit JSON, then values are still told apart', () => {
    expect(fingerprintOf({ 'a","b': 1 })).not.toBe(fingerprintOf({ a: 'b', b: 1 }));
    expect(fingerprintOf({ a: 'x', b: 'y' })).not.toBe(fingerprintOf({ a: 'x","b":"y' }));
  });
});
