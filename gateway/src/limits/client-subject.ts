import { isIPv4, isIPv6 } from 'node:net';

/** The subject of every client whose address is missing or not an IP address. */
export const UNKNOWN_CLIENT = 'unknown';

/**
 * Who the anonymous per-IP limit counts a client as, from its address (the socket's, or the one
 * a trusted proxy put in X-Forwarded-For: Express's `req.ip`):
 * - an IPv4 address: the address itself;
 * - an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, how a dual-stack socket reports an IPv4
 *   client): the IPv4 address, so one client is one subject whichever way it arrived;
 * - any other IPv6 address: its network of `ipv6PrefixLength` leading bits, in RFC 5952 form
 *   (`2001:db8:1:2::/64`). One subscriber gets at least a /64 (2^64 addresses) from its provider,
 *   so keying on the full address would give each client unlimited budgets;
 * - anything else: one shared subject (a trusted proxy sending garbage must not mint budgets).
 */
export function clientSubject(address: string | undefined, ipv6PrefixLength: number): string {
  if (!Number.isInteger(ipv6PrefixLength) || ipv6PrefixLength < 1 || ipv6PrefixLength > 128) {
    throw new RangeError(`the IPv6 prefix length must be an integer from 1 to 128, got ${ipv6PrefixLength}`);
  }
  if (address === undefined) return UNKNOWN_CLIENT;
  if (isIPv4(address)) return address;
  const groups = ipv6Groups(address);
  if (!groups) return UNKNOWN_CLIENT;
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  }
  return `${formatIpv6(networkOf(groups, ipv6PrefixLength))}/${ipv6PrefixLength}`;
}

/** The eight 16-bit groups of an IPv6 address (any textual form RFC 4291 allows, a zone index ignored), or undefined. */
export function ipv6Groups(address: string): number[] | undefined {
  const text = address.split('%')[0]!;
  if (!isIPv6(text)) return undefined;
  // A dotted IPv4 tail stands for the last two groups: rewritten as those, in hex.
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  const body = dotted ? `${dotted[1]}${((Number(dotted[2]) << 8) | Number(dotted[3])).toString(16)}:${((Number(dotted[4]) << 8) | Number(dotted[5])).toString(16)}` : text;
  const [head = '', rest] = body.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const leading = parse(head);
  const trailing = parse(rest ?? '');
  const zeros = rest === undefined ? 0 : 8 - leading.length - trailing.length;
  const groups = [...leading, ...new Array<number>(zeros).fill(0), ...trailing];
  return groups.length === 8 && groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : undefined;
}

/** The groups with every bit past the first `prefixLength` cleared. */
function networkOf(groups: number[], prefixLength: number): number[] {
  return groups.map((group, i) => {
    const bitsKept = Math.min(16, Math.max(0, prefixLength - i * 16));
    return bitsKept === 0 ? 0 : group & ((0xffff << (16 - bitsKept)) & 0xffff);
  });
}

/** RFC 5952: lower-case hex without leading zeros, the longest run (two or more) of zero groups as `::`, the first on a tie. */
export function formatIpv6(groups: number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < groups.length; ) {
    if (groups[i] !== 0) {
      i += 1;
      continue;
    }
    let end = i;
    while (end < groups.length && groups[end] === 0) end += 1;
    if (end - i > bestLength) [bestStart, bestLength] = [i, end - i];
    i = end;
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}
