import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The subject of every client whose address is missing or not an IP address. */
export const UNKNOWN_CLIENT = 'unknown';

/**
 * Who the anonymous per-IP limit counts a client as, from its address (the socket's, or the one
 * a trusted proxy put in X-Forwarded-For: Express's `req.ip`):
 * - an IPv4 address: the address itself;
 * - an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, how a dual-stack socket reports an IPv4
 *   client): the IPv4 address, so one client is one subject whichever way it arrived (ipaddr.js
 *   reads the deprecated IPv4-compatible form `::192.0.2.1` as mapped too);
 * - any other IPv6 address: its network of `ipv6PrefixLength` leading bits, in RFC 5952 form
 *   (`2001:db8:1:2::/64`). One subscriber gets at least a /64 (2^64 addresses) from its provider,
 *   so keying on the full address would give each client unlimited budgets;
 * - anything else: one shared subject (a trusted proxy sending garbage must not mint budgets).
 * Node's `net` says what is an address (strictly: no `[…]:port`, no short IPv4 forms); ipaddr.js
 * does the IPv6 arithmetic and writes the network in RFC 5952 form.
 */
export function clientSubject(address: string | undefined, ipv6PrefixLength: number): string {
  if (!Number.isInteger(ipv6PrefixLength) || ipv6PrefixLength < 1 || ipv6PrefixLength > 128) {
    throw new RangeError(`the IPv6 prefix length must be an integer from 1 to 128, got ${ipv6PrefixLength}`);
  }
  if (address === undefined) return UNKNOWN_CLIENT;
  if (isIPv4(address)) return address;
  // A zone index (`fe80::1%eth0`) names the interface, not the client.
  const text = address.split('%')[0]!;
  if (!isIPv6(text)) return UNKNOWN_CLIENT;
  const parsed = ipaddr.IPv6.parse(text);
  if (parsed.isIPv4MappedAddress()) return parsed.toIPv4Address().toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/${ipv6PrefixLength}`).toRFC5952String()}/${ipv6PrefixLength}`;
}
