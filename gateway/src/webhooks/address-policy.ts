import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where a webhook may be sent (the SSRF rules): an `https://` URL whose host is, and resolves only
 * to, public unicast addresses. Loopback, private, link-local, unique-local, carrier-grade NAT,
 * multicast, documentation and every other special range are refused, in IPv4 and IPv6 alike, an
 * IPv4 address written as IPv4-mapped IPv6 (`::ffff:127.0.0.1`) by what it maps to. The rule is
 * checked when an endpoint is added and again when each delivery connects (`checkedLookup`), so a
 * name that later resolves to an internal address is caught. `WEBHOOK_ALLOW_PRIVATE=true` lifts it
 * (and allows `http://`), for development and tests.
 */

const MAX_URL_LENGTH = 2_048;

/** True for an address on the public internet ('unicast' is ipaddr.js's name for what no special range holds). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

export type Resolve = (host: string) => Promise<readonly string[]>;

/** Every address the name resolves to (the operating system's resolver, as a connection would use). */
export const resolveAll: Resolve = (host) =>
  new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses: LookupAddress[]) => (error ? reject(error) : resolve(addresses.map((entry) => entry.address))));
  });

/** Why `raw` is not an endpoint URL we may send to, in a sentence that starts with "url"; null when it is one. */
export async function refuseEndpointUrl(raw: string, allowPrivate: boolean, resolve: Resolve = resolveAll): Promise<string | null> {
  if (raw.length > MAX_URL_LENGTH) return `url must have at most ${MAX_URL_LENGTH} characters.`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute URL (https://…).';
  }
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return `url must start with https:// (got ${url.protocol}//).`;
  // Credentials in the URL would be shown in every listing: the secret signs deliveries instead.
  if (url.username !== '' || url.password !== '') return 'url must not contain a user name or password.';
  if (url.hash !== '') return 'url must not contain a fragment (#…).';
  if (allowPrivate) return null;
  const host = hostOf(url);
  if (isIP(host) !== 0) return isPublicAddress(host) ? null : `url must not point to a loopback, private, link-local or unique-local address (${host}).`;
  let addresses: readonly string[];
  try {
    addresses = await resolve(host);
  } catch {
    return `url's host name ${host} does not resolve.`;
  }
  const inner = addresses.find((address) => !isPublicAddress(address));
  if (addresses.length === 0) return `url's host name ${host} does not resolve.`;
  return inner === undefined ? null : `url's host name ${host} resolves to a loopback, private, link-local or unique-local address (${inner}).`;
}

/** The URL's host as a connection sees it: an IPv6 literal without its brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export class RefusedAddressError extends Error {
  constructor(host: string, address: string) {
    super(`${host} resolves to a non-public address (${address}): not delivered`);
    this.name = 'RefusedAddressError';
  }
}

/**
 * A `lookup` for a delivery's request: it resolves the name once, refuses every answer if one of
 * them is not public, and hands the connection the address it checked, so nothing can resolve
 * the name again in between (DNS rebinding).
 */
export function checkedLookup(resolve: Resolve = resolveAll): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const inner = addresses.find((address) => !isPublicAddress(address));
        const chosen = addresses[0];
        if (inner !== undefined || chosen === undefined) {
          callback(inner === undefined ? new Error(`${hostname} does not resolve`) : new RefusedAddressError(hostname, inner), '', 0);
          return;
        }
        const family = isIP(chosen);
        if (options.all) callback(null, [{ address: chosen, family }]);
        else callback(null, chosen, family);
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };
}
