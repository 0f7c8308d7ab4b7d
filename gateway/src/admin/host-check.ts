import { isIP } from 'node:net';
import type { RequestHandler } from 'express';
import { ApiError } from '../../../shared/src/errors';

/** Names every admin port answers to: the loopback ones, which the CLI, the console and curl use. */
export const LOOPBACK_HOST_NAMES = ['127.0.0.1', 'localhost', '::1'] as const;

/** A host name (RFC 1123 labels) or an IP address: what ADMIN_ALLOWED_HOSTS may list. */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

export function isHostName(name: string): boolean {
  return isIP(name) !== 0 || HOST_NAME.test(name);
}

/** The host of a `Host` header, lower-case, without its port, brackets or a trailing dot; undefined when it is not one. */
export function hostNameOf(header: string): string | undefined {
  const value = header.trim().toLowerCase();
  const bracketed = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/.exec(value);
  if (bracketed) return isIP(bracketed[1]!) === 6 ? bracketed[1] : undefined;
  const match = /^([^:]+)(?::\d{1,5})?$/.exec(value);
  const name = match?.[1]?.replace(/\.$/, '');
  return name !== undefined && isHostName(name) ? name : undefined;
}

/**
 * The admin port answers only requests addressed to it by a name it knows: its own address
 * (`ADMIN_HOST`), the loopback names, or one listed in `ADMIN_ALLOWED_HOSTS`. A page on any other
 * site whose name an attacker points at 127.0.0.1 (DNS rebinding) sends its own name in `Host`,
 * and is refused before anything else runs. The port is not compared: an SSH tunnel or a published
 * container port reaches the same API on another port number.
 */
export function requireKnownHost({ adminHost, allowedHosts }: { adminHost: string; allowedHosts: readonly string[] }): RequestHandler {
  const known = new Set<string>([...LOOPBACK_HOST_NAMES, ...allowedHosts.map((name) => name.toLowerCase())]);
  const own = hostNameOf(adminHost.includes(':') && !adminHost.startsWith('[') ? `[${adminHost}]` : adminHost);
  // A wildcard bind address is no name a client can use.
  if (own && own !== '0.0.0.0' && own !== '::') known.add(own);
  return (req, _res, next) => {
    const header = req.headers.host;
    const name = header === undefined ? undefined : hostNameOf(header);
    if (name !== undefined && known.has(name)) return next();
    const shown = header === undefined ? 'no Host header' : `the Host "${header.slice(0, 100)}"`;
    next(new ApiError('invalid_parameter', `The admin API does not answer requests sent to ${shown}: use 127.0.0.1 or localhost, its own address, or a name listed in ADMIN_ALLOWED_HOSTS.`));
  };
}
