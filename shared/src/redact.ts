/**
 * Secrets out of what is printed: start-up messages, log lines, error messages. Nothing secret is
 * ever written to a log (operating contract, "Abuse limits"): passwords in URLs are masked, API keys
 * and bearer values are redacted.
 */

export const MASK = '***';
export const REDACTED = '[redacted]';

// scheme://userinfo@ : the userinfo (a user, a password, or both) up to the last @ before the host.
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#]*)@/gi;

/**
 * Every URL in `text` without its password: `redis://app:s3cret@cache:6379` is shown as
 * `redis://app:***@cache:6379`. A user without a password is masked whole, since some schemes
 * carry the password there (`redis://s3cret@cache`). Works on text that is not a valid URL (a
 * value being refused).
 */
export function maskUrlCredentials(text: string): string {
  if (!text.includes('@')) return text;
  return text.replace(URL_CREDENTIALS, (_match, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(':');
    return `${scheme}${colon < 0 ? MASK : `${userinfo.slice(0, colon)}:${MASK}`}@`;
  });
}

// ask_live_… / ask_test_… : the key's prefix is kept, so the line still says which environment it was for.
const API_KEY = /\b(ask_(?:live|test)_)[0-9A-Za-z]+/g;
// A bearer value in a header line or a URL (RFC 6750 also allows `access_token` in a query).
const BEARER = /\b(bearer)(\s+|%20|\+)[^\s,;&]+/gi;
// Query parameters that carry credentials, whatever else the URL holds.
const SECRET_PARAMETER = /([?&;](?:access_token|api_key|apikey|api-key|key|token|password|secret)=)[^&#;\s]*/gi;

/**
 * `text` (a URL as received, a header value) with API keys, bearer values, credential-bearing query
 * parameters and URL passwords replaced. Cheap when there is nothing to redact: this runs on every
 * access-log line.
 */
export function redactSecrets(text: string): string {
  let out = text;
  if (out.includes('ask_')) out = out.replace(API_KEY, `$1${REDACTED}`);
  if (/bearer/i.test(out)) out = out.replace(BEARER, `$1$2${REDACTED}`);
  if (out.includes('=')) out = out.replace(SECRET_PARAMETER, `$1${REDACTED}`);
  return maskUrlCredentials(out);
}
