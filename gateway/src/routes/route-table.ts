import { openApiDocument } from '../../../shared/src/openapi';

/**
 * The gateway's route table, derived from the interface description's `paths`, so that the gateway,
 * the document and the pets-service cannot drift apart. A request path is checked once, here, and
 * the path forwarded upstream is rebuilt from the matched template, never passed through raw.
 *
 * Two extensions of the document drive what the gateway answers itself:
 * - `x-not-implemented: true` on an operation: answered 501 `not_implemented`;
 * - `x-path-prefix` with `x-not-implemented: true` on a tag: every path under that prefix
 *   (`/store/…`), documented or not, is answered 501, whatever the method, as the contract says for
 *   `/v1/store/*`.
 */

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const DOCUMENT_METHODS: readonly Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export interface Operation {
  readonly operationId: string;
  readonly deprecated: boolean;
  readonly notImplemented: boolean;
  readonly acceptsBody: boolean;
}

export interface PathTemplate {
  /** As in the document, e.g. `/pets/{petId}`. */
  readonly template: string;
  readonly segments: readonly Segment[];
  readonly operations: ReadonlyMap<string, Operation>;
  /** The methods to announce in `Allow` (HEAD wherever GET is). */
  readonly allow: string;
}

type Segment = { literal: string } | { parameter: string };

export type RouteMatch =
  /** A documented path; `operation` is undefined when the method is not one of its operations (405). */
  | { kind: 'path'; path: PathTemplate; operation: Operation | undefined; forwardPath: string }
  /** Under a section the gateway answers 501 for. */
  | { kind: 'not-implemented'; section: string }
  /**
   * The path itself is unacceptable (dot segments, backslashes, encoded slashes, bad encoding);
   * `path` is the documented path it has the shape of, if any (its deprecation still applies).
   */
  | { kind: 'bad-path'; reason: string; path?: PathTemplate }
  | { kind: 'unknown' };

interface DocumentOperation {
  operationId?: string;
  deprecated?: boolean;
  requestBody?: unknown;
  'x-not-implemented'?: boolean;
}

interface DocumentTag {
  name: string;
  'x-path-prefix'?: string;
  'x-not-implemented'?: boolean;
}

export interface RouteTable {
  readonly paths: readonly PathTemplate[];
  readonly notImplementedPrefixes: readonly string[];
  match(method: string, rawPath: string): RouteMatch;
}

export function routeTableOf(document: { paths: object; tags?: readonly object[] }): RouteTable {
  const paths: PathTemplate[] = Object.entries(document.paths as Record<string, Record<string, DocumentOperation>>).map(([template, item]) => {
    const operations = new Map<string, Operation>();
    for (const method of DOCUMENT_METHODS) {
      const operation = item[method.toLowerCase()];
      if (!operation) continue;
      const described: Operation = {
        operationId: operation.operationId ?? `${method} ${template}`,
        deprecated: operation.deprecated === true,
        notImplemented: operation['x-not-implemented'] === true,
        acceptsBody: operation.requestBody !== undefined,
      };
      operations.set(method, described);
      if (method === 'GET') operations.set('HEAD', described);
    }
    return { template, segments: parseTemplate(template), operations, allow: [...operations.keys()].join(', ') };
  });
  const notImplementedPrefixes = ((document.tags ?? []) as DocumentTag[])
    .filter((tag) => tag['x-not-implemented'] === true && typeof tag['x-path-prefix'] === 'string')
    .map((tag) => tag['x-path-prefix']!);

  return {
    paths,
    notImplementedPrefixes,
    match(method, rawPath) {
      const checked = checkPath(rawPath);
      if (typeof checked === 'string') {
        const raw = rawPath.split('/').slice(1);
        if (raw.at(-1) === '') raw.pop();
        return { kind: 'bad-path', reason: checked, path: paths.find((path) => matchSegments(path.segments, raw)) };
      }
      // A section not implemented yet answers 501 whatever the method, before any documented path
      // of it can answer 405 (`POST /store/orders` where only GET is documented).
      const joined = `/${checked.join('/')}`;
      const section = notImplementedPrefixes.find((prefix) => joined === prefix || joined.startsWith(`${prefix}/`));
      if (section) return { kind: 'not-implemented', section };
      for (const path of paths) {
        const values = matchSegments(path.segments, checked);
        if (values) return { kind: 'path', path, operation: path.operations.get(method), forwardPath: buildPath(path.segments, values) };
      }
      return { kind: 'unknown' };
    },
  };
}

/** The table of the published interface description, built once. */
export const ROUTES: RouteTable = routeTableOf(openApiDocument);

function parseTemplate(template: string): Segment[] {
  return template
    .split('/')
    .slice(1)
    .map((part) => (/^\{[A-Za-z0-9_]+\}$/.test(part) ? { parameter: part.slice(1, -1) } : { literal: part }));
}

const ENCODED_SEPARATOR = /%(?:2f|5c)/i;
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * The path's segments, decoded, or the reason it is refused. A path that could mean something else
 * to the next hop is refused rather than normalised: `..` (raw or encoded) could climb out of
 * `/v1`, `\` is turned into `/` by some HTTP libraries, and `%2F` / `%5C` hide a separator inside a
 * segment. One trailing slash is allowed (`/pets/`), empty segments elsewhere are not.
 */
export function checkPath(rawPath: string): string[] | string {
  if (rawPath.includes('\\')) return 'The path must not contain a backslash.';
  if (ENCODED_SEPARATOR.test(rawPath)) return 'The path must not contain an encoded slash or backslash (%2F, %5C).';
  const parts = rawPath.split('/').slice(1);
  if (parts.at(-1) === '') parts.pop();
  const decoded: string[] = [];
  for (const part of parts) {
    if (DOT_SEGMENT.test(part)) return 'The path must not contain "." or ".." segments.';
    if (part === '') return 'The path must not contain empty segments ("//").';
    try {
      decoded.push(decodeURIComponent(part));
    } catch {
      return 'The path holds invalid percent-encoding.';
    }
  }
  return decoded;
}

function matchSegments(segments: readonly Segment[], parts: readonly string[]): Map<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const values = new Map<string, string>();
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if ('literal' in segment) {
      // Case-sensitive: /v1/PETS is not the API.
      if (segment.literal !== parts[i]) return undefined;
    } else {
      values.set(segment.parameter, parts[i]!);
    }
  }
  return values;
}

/** The template with each parameter's decoded value re-encoded: what the pets-service receives. */
function buildPath(segments: readonly Segment[], values: ReadonlyMap<string, string>): string {
  return segments.map((segment) => `/${'literal' in segment ? segment.literal : encodeURIComponent(values.get(segment.parameter)!)}`).join('');
}
