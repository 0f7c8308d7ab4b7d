import { BlockList } from 'node:net';
import fc from 'fast-check';
import { clientSubject, UNKNOWN_CLIENT } from './client-subject';

const group = fc.integer({ min: 0, max: 0xffff });
const groups = fc.array(group, { minLength: 8, maxLength: 8 });
const prefixLength = fc.integer({ min: 1, max: 128 });
const uncompressed = (g: number[]) => g.map((n) => n.toString(16)).join(':');

/** Node's own notion of "this address is in that network": the oracle the subjects are checked against. */
function inNetwork(address: string, network: string, length: number): boolean {
  const list = new BlockList();
  list.addSubnet(network, length, 'ipv6');
  return list.check(address, 'ipv6');
}

/** The address with bit `bit` (0 = the most significant of all 128) flipped. */
function flipBit(g: number[], bit: number): number[] {
  const copy = [...g];
  copy[Math.floor(bit / 16)]! ^= 1 << (15 - (bit % 16));
  return copy;
}

describe('clientSubject', () => {
  it.each([
    ['an IPv4 address', '192.0.2.7', 64, '192.0.2.7'],
    ['an IPv4-mapped IPv6 address (dotted)', '::ffff:192.0.2.7', 64, '192.0.2.7'],
    ['an IPv4-mapped IPv6 address (hex, upper case)', '::FFFF:C000:0207', 64, '192.0.2.7'],
    ['an IPv6 address', '2001:db8:1:2:3:4:5:6', 64, '2001:db8:1:2::/64'],
    ['an IPv6 address in upper case with leading zeros', '2001:0DB8:0001:0002:0003:0004:0005:0006', 64, '2001:db8:1:2::/64'],
    ['an IPv6 address on a /48', '2001:db8:1:2:3:4:5:6', 48, '2001:db8:1::/48'],
    ['an IPv6 address on a /56 (a bit boundary inside a group)', '2001:db8:1:2ff:3:4:5:6', 56, '2001:db8:1:200::/56'],
    ['an IPv6 address on a /128', '2001:db8::1', 128, '2001:db8::1/128'],
    ['the IPv6 loopback', '::1', 64, '::/64'],
    ['a link-local address with a zone index', 'fe80::1%eth0', 64, 'fe80::/64'],
    ['an IPv4-compatible address (deprecated; read as mapped)', '::192.0.2.7', 96, '192.0.2.7'],
    ['an address with a dotted IPv4 tail that is neither', '1:2:3:4:5:6:1.2.3.4', 128, '1:2:3:4:5:6:102:304/128'],
    ['a NAT64 address', '64:ff9b::192.0.2.7', 64, '64:ff9b::/64'],
  ])('when the client is %s, then it is counted as the right subject', (_what, address, length, subject) => {
    expect(clientSubject(address, length)).toBe(subject);
  });

  it.each([[undefined], [''], ['garbage'], ['192.0.2.256'], ['2001:db8::1::2'], ['[2001:db8::1]:443'], ['192.0.2.7:80']])(
    'when the address is %j, then the one shared unknown subject',
    (address) => {
      expect(clientSubject(address, 64)).toBe(UNKNOWN_CLIENT);
    },
  );

  it.each([0, 129, 64.5, Number.NaN])('when the prefix length is %s, then it is refused', (length) => {
    expect(() => clientSubject('2001:db8::1', length)).toThrow(RangeError);
  });

  it('when two IPv6 addresses share their first N bits, then they are one subject; when they differ within them, two', () => {
    fc.assert(
      fc.property(groups, prefixLength, fc.nat(127), (address, length, bit) => {
        fc.pre(!(address.slice(0, 5).every((g) => g === 0) && address[5] === 0xffff)); // not IPv4-mapped
        const other = flipBit(address, bit);
        fc.pre(!(other.slice(0, 5).every((g) => g === 0) && other[5] === 0xffff));
        const same = clientSubject(uncompressed(address), length) === clientSubject(uncompressed(other), length);
        expect(same).toBe(bit >= length);
      }),
      { numRuns: 400 },
    );
  });

  it("when an IPv6 client is counted, then its subject is a network that Node's BlockList agrees contains it, with no host bits", () => {
    fc.assert(
      fc.property(fc.ipV6(), prefixLength, (address, length) => {
        const subject = clientSubject(address, length);
        fc.pre(subject.includes('/')); // IPv4-mapped ones are counted as IPv4
        const [network, bits] = subject.split('/') as [string, string];
        expect(Number(bits)).toBe(length);
        expect(inNetwork(address, network, length)).toBe(true);
        expect(clientSubject(network, length)).toBe(subject);
      }),
      { numRuns: 400 },
    );
  });

  it('when an IPv4 client arrives as itself or IPv4-mapped (dotted or hex), then all three are the same subject, the IPv4 address', () => {
    fc.assert(
      fc.property(fc.ipV4(), prefixLength, (address, length) => {
        const [a, b, c, d] = address.split('.').map(Number) as [number, number, number, number];
        const hex = `::ffff:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
        expect([clientSubject(address, length), clientSubject(`::ffff:${address}`, length), clientSubject(hex, length)]).toEqual([address, address, address]);
      }),
    );
  });
});

describe('the network in canonical form', () => {
  /** An address's subject on a /128: the address itself, as the subject writes it. */
  const canonical = (address: string) => clientSubject(address, 128).replace(/\/128$/, '');
  const isMapped = (g: number[]) => g.slice(0, 5).every((n) => n === 0) && (g[5] === 0xffff || (g[5] === 0 && g[6] !== 0));

  it('when any address is written compressed, uncompressed or in upper case, then it has one canonical form', () => {
    fc.assert(
      fc.property(groups, (g) => {
        fc.pre(!isMapped(g));
        const forms = [uncompressed(g), uncompressed(g).toUpperCase(), canonical(uncompressed(g))].map(canonical);
        expect(new Set(forms).size).toBe(1);
      }),
      { numRuns: 400 },
    );
  });

  it('when fast-check writes an IPv6 address in any form, then the canonical form names the same address for Node', () => {
    fc.assert(
      fc.property(fc.ipV6(), (address) => {
        const subject = clientSubject(address, 128);
        fc.pre(subject.endsWith('/128'));
        expect(inNetwork(address, canonical(address), 128)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it.each([
    [[0x2001, 0xdb8, 0, 0, 1, 0, 0, 1], '2001:db8::1:0:0:1'],
    [[0x2001, 0xdb8, 0, 1, 1, 1, 1, 1], '2001:db8:0:1:1:1:1:1'],
    [[0x2001, 0xdb8, 0, 0, 0, 1, 0, 0], '2001:db8::1:0:0'],
    [[0, 0, 0, 0, 0, 0, 0, 0], '::'],
    [[0, 0, 0, 0, 0, 0, 0, 1], '::1'],
    [[0xfe80, 0, 0, 0, 0, 0, 0, 0], 'fe80::'],
  ])('when %j is written, then RFC 5952 gives %s', (g, text) => {
    expect(canonical(uncompressed(g))).toBe(text);
  });
});
