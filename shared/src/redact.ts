/**
 * Secrets out of what is printed: start-up messages, log lines, error messages. Nothing secret is
 * ever written to a log (operating contract, "Abuse limits"): passwords in URLs are masked, API keys
 * and bearer values are redacted.
 */

export const MASK = '***';
export const REDACTED = '[redacted]';

// Where a URL starts: a scheme and at least one slash (`redis://`, and the malformed `redis:/`).
const URL_START = /[a-z][a-z0-9+.-]*:\/+/gi;

/**
 * Every URL in `text` without its password: `redis://app:s3cret@cache:6379` is shown as
 * `redis://app:***@cache:6379`. Works on text that is no valid URL (a value being refused, a value
 * a library parses its own way): everything between the scheme and the last `@` before the next URL
 * or the end of the line is the credentials, so a password holding a space or an `@`
 * (`redis://app:Sup3r Secret@Pw@host`) or a scheme with one slash (`redis:/app:pw@host`) is masked
 * too; when in doubt, more is masked, never less. The user is kept when it is a plain name before a
 * colon; otherwise everything is masked, since some schemes carry the password there (`redis://s3cret@cache`).
 */
export function maskUrlCredentials(text: string): string {
  if (!text.includes('@')) return text;
  const starts = [...text.matchAll(URL_START)];
  let shown = '';
  let copied = 0;
  starts.forEach((start, i) => {
    const from = start.index + start[0].length;
    if (from < copied) return;
    const nextUrl = starts[i + 1]?.index ?? text.length;
    const lineEnd = text.indexOf('\n', from);
    const to = lineEnd >= 0 && lineEnd < nextUrl ? lineEnd : nextUrl;
    const at = text.lastIndexOf('@', to - 1);
    if (at < from) return;
    const userinfo = text.slice(from, at);
    const user = /^[^\s:]*:/.exec(userinfo)?.[0];
    shown += `${text.slice(copied, from)}${user ?? ''}${MASK}`;
    copied = at;
  });
  return shown + text.slice(copied);
}

/** `text` as a pattern in which each character may also be percent-encoded (`_` or `%5F`). */
function percentEncodable(text: string): string {
  return [...text].map((c) => `(?:${c}|%${c.charCodeAt(0).toString(16).padStart(2, '0')})`).join('');
}
const STARTS_AS_URL = new RegExp(`^\\s*${URL_START.source}`, 'i');

/**
 * A configured URL for a message that refuses it: quoted with its credentials masked; or, when it
 * holds an `@` but no `scheme:/` says where credentials would start (`app:s3cret@cache`), not shown.
 */
export function shownUrlValue(raw: string): string {
  return !raw.includes('@') || STARTS_AS_URL.test(raw) ? `"${maskUrlCredentials(raw)}"` : 'a value that is not a URL';
}

// ask_live_… / ask_test_…, also percent-encoded (`ask%5Flive%5F…`, which the gateway decodes as a key):
// the key's prefix is kept, so the line still says which environment it was for.
const API_KEY = new RegExp(`(${percentEncodable('ask_')}(?:${percentEncodable('live')}|${percentEncodable('test')})${percentEncodable('_')})(?:[0-9a-z]|%[3-7][0-9a-f])+`, 'gi');
const MAY_HOLD_API_KEY = /ask|%/i;
// A bearer value in a header line or a URL (RFC 6750 also allows `access_token` in a query).
const BEARER = /\b(bearer)(\s+|%20|\+)[^\s,;&]+/gi;
// Query parameters that carry credentials, whatever else the URL holds.
const SECRET_PARAMETER = /([?&;](?:access_token|api_key|apikey|api-key|key|token|password|secret)=)[^&#;\s]*/gi;
/**
 * Whether any of the four could apply, in one pass: each pattern above (and `maskUrlCredentials`'s
 * `@`) needs one of these. Most URLs hold none (`/v1/pets?limit=20`) and are returned as they are:
 * four scans of every access-log URL cost 3 µs a request on Node 24, one costs a sixth of that
 * (issue 29, `bench/micro/redact-secrets.ts`).
 */
const MAY_HOLD_SECRET = /ask|%|bearer|@|(?:access_token|api_key|apikey|api-key|key|token|password|secret)=/i;

/**
 * `text` (a URL as received, a header value) with API keys, bearer values, credential-bearing query
 * parameters and URL passwords replaced. Cheap when there is nothing to redact: this runs on every
 * access-log line.
 */
export function redactSecrets(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  let out = text;
  if (MAY_HOLD_API_KEY.test(out)) out = out.replace(API_KEY, `$1${REDACTED}`);
  if (/bearer/i.test(out)) out = out.replace(BEARER, `$1$2${REDACTED}`);
  if (out.includes('=')) out = out.replace(SECRET_PARAMETER, `$1${REDACTED}`);
  return maskUrlCredentials(out);
}
