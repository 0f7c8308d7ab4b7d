import type { OutgoingHttpHeaders } from 'node:http';
import { PUBLIC_PATH_PREFIX } from '../../../shared/src/settings';

/*
 * `PUBLIC_BASE_URL` is the gateway's setting (docs/adr/0024): the pets-service builds its links as
 * references relative to the API's root (`/v1/pets?cursor=…`, `/v1/pets/7`), and the gateway, the
 * public face, makes each one absolute on the configured base on the way out; never on the
 * request's Host or a forwarded host, which a client chooses. Only a path under `/v1` is
 * rewritten (`/v1`, `/v1/…`, `/v1?…`): an absolute reference is left as it is.
 */

/** A Location value that is a path under `/v1`: the prefix, then the end, a `/`, `?` or `#`. */
const PATH_UNDER_PREFIX = new RegExp(`^${PUBLIC_PATH_PREFIX}(?=$|[/?#])`);
/** Every `<target>` of a Link field value (RFC 8288) whose target is a path under `/v1`. */
const LINK_TARGET_UNDER_PREFIX = new RegExp(`<${PUBLIC_PATH_PREFIX}(?=[/?#>])`, 'g');

/** A Link field value with its `/v1` targets made absolute on `publicBaseUrl` (which ends in `/v1`). */
export function absoluteLinkField(value: string, publicBaseUrl: string): string {
  return value.replace(LINK_TARGET_UNDER_PREFIX, `<${publicBaseUrl}`);
}

/**
 * Rewrites, in place, the fields of a pets-service answer that carry links (`Link`, `Location`),
 * for the client; undefined without `PUBLIC_BASE_URL` (links stay relative, nothing to do).
 */
export function linkRewriter(publicBaseUrl: string | undefined): ((headers: OutgoingHttpHeaders) => void) | undefined {
  if (publicBaseUrl === undefined) return undefined;
  return (headers) => {
    const { link, location } = headers;
    if (typeof location === 'string') headers.location = location.replace(PATH_UNDER_PREFIX, publicBaseUrl);
    if (typeof link === 'string') headers.link = absoluteLinkField(link, publicBaseUrl);
    else if (Array.isArray(link)) headers.link = link.map((value) => absoluteLinkField(value, publicBaseUrl));
  };
}
