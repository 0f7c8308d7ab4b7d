/** Where a request goes in the `/v1` pipeline: its path relative to `/v1`, and its query. */
export interface V1Target {
  /** `/pets/1`; `/` for `/v1` itself. */
  path: string;
  /** The query with its `?`, or empty. */
  search: string;
}

/** `scheme://authority` at the start of an absolute-form request target (RFC 9112 §3.2.2). */
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;
const SLASH = 0x2f;
const QUESTION_MARK = 0x3f;

/**
 * The request target's place under `/v1`, or undefined when it is not under `/v1` (the public app's
 * other routes then answer it). Matches as the Express mount it replaces did: case-sensitive
 * (`/V1` is not the API), `/v1` itself and anything below it, never `/v1x`; an absolute-form target
 * is read by its path; a fragment (which clients should not send) is dropped, never forwarded.
 */
export function v1Target(url: string): V1Target | undefined {
  let rest = url;
  if (rest.charCodeAt(0) !== SLASH) {
    const authority = ABSOLUTE_FORM.exec(rest);
    if (!authority) return undefined;
    rest = rest.slice(authority[0].length);
  }
  const hash = rest.indexOf('#');
  if (hash >= 0) rest = rest.slice(0, hash);
  if (!rest.startsWith('/v1')) return undefined;
  const after = rest.charCodeAt(3);
  if (rest.length > 3 && after !== SLASH && after !== QUESTION_MARK) return undefined;
  const query = rest.indexOf('?', 3);
  const path = query < 0 ? rest.slice(3) : rest.slice(3, query);
  return { path: path === '' ? '/' : path, search: query < 0 ? '' : rest.slice(query) };
}
