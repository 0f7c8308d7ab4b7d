import type { OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { PUBLIC_PATH_PREFIX } from '../../../shared/src/settings';

/*
 * `PUBLIC_BASE_URL` is the gateway's setting (docs/adr/0024): every link a client sees is built as
 * a reference relative to the API's root (`/v1/pets?cursor=…`, `/v1/pets/7`, the deprecation
 * `</v1/pets>`), by the pets-service or the gateway, and the gateway, the public face, makes each one
 * absolute on the configured base as the answer's head goes out: never on the request's Host or a
 * forwarded host, which a client chooses. Only a path under `/v1` is rewritten (`/v1`, `/v1/…`,
 * `/v1?…`): an absolute reference is left as it is.
 */

/** A Location value that is a path under `/v1`: the prefix, then the end, a `/`, `?` or `#`. */
const PATH_UNDER_PREFIX = new RegExp(`^${PUBLIC_PATH_PREFIX}(?=$|[/?#])`);
/** Every `<target>` of a Link field value (RFC 8288) whose target is a path under `/v1`. */
const LINK_TARGET_UNDER_PREFIX = new RegExp(`<${PUBLIC_PATH_PREFIX}(?=[/?#>])`, 'g');

/** A Link field value with its `/v1` targets made absolute on `publicBaseUrl` (which ends in `/v1`). */
export function absoluteLinkField(value: string, publicBaseUrl: string): string {
  return value.replace(LINK_TARGET_UNDER_PREFIX, `<${publicBaseUrl}`);
}

/** A Location value made absolute on `publicBaseUrl` when it is a path under `/v1`. */
export function absoluteLocation(value: string, publicBaseUrl: string): string {
  return value.replace(PATH_UNDER_PREFIX, publicBaseUrl);
}

type Rewrite = (value: string, publicBaseUrl: string) => string;
const REWRITES: ReadonlyArray<readonly [string, Rewrite]> = [
  ['link', absoluteLinkField],
  ['location', absoluteLocation],
];

function rewritten(value: OutgoingHttpHeader | undefined, rewrite: Rewrite, publicBaseUrl: string): OutgoingHttpHeader | undefined {
  if (typeof value === 'string') return rewrite(value, publicBaseUrl);
  if (Array.isArray(value)) return value.map((item) => rewrite(item, publicBaseUrl));
  return undefined;
}

/**
 * The first `/v1` middleware when `PUBLIC_BASE_URL` is set (undefined otherwise: nothing to do):
 * it hooks this response's `writeHead`, through which every head goes (Node's implicit head too),
 * and rewrites there the link fields set on the response and those handed to `writeHead`
 * (the forwarded answer's), so that whichever part of the gateway answers, its links are absolute.
 */
export function absoluteLinks(publicBaseUrl: string | undefined): RequestHandler | undefined {
  if (publicBaseUrl === undefined) return undefined;
  return (_req, res, next) => {
    const writeHead = res.writeHead;
    res.writeHead = function writeHeadWithAbsoluteLinks(this: ServerResponse, ...args: unknown[]) {
      const given = args.find((arg, i) => i > 0 && typeof arg === 'object' && arg !== null && !Array.isArray(arg)) as OutgoingHttpHeaders | undefined;
      for (const [name, rewrite] of REWRITES) {
        const set = rewritten(this.getHeader(name), rewrite, publicBaseUrl);
        if (set !== undefined) this.setHeader(name, set);
        if (given) {
          for (const key of Object.keys(given)) {
            if (key.toLowerCase() !== name) continue;
            const value = rewritten(given[key], rewrite, publicBaseUrl);
            if (value !== undefined) given[key] = value;
          }
        }
      }
      return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
    } as typeof res.writeHead;
    next();
  };
}
