import { parse as parseQueryString, type ParsedUrlQuery } from 'node:querystring';
import contentType from 'content-type';
import type { Request, RequestHandler } from 'express';
import { ApiError } from '../../../shared/src/errors';
import { sentUncompressed } from '../../../shared/src/json-body';
import { readParsedBody } from '../../../shared/src/request-body';
import type { KeyPosition } from '../accounts/account-views';
import type { NewKeyInput } from '../accounts/schemas';
import { parseKeysCursor } from '../listing-cursors';
import { GRACE_UNITS } from './key-pages';

/** The portal's forms: read from the request, and their fields (and the dashboard's one query parameter) as the account service takes them (what the service checks is left to it). */

/** A form post is small: a few short fields. */
const FORM_MAX_BYTES = 8 * 1024;
const FORM_MAX_FIELDS = 10;
const FORM_TOO_LARGE = 'The form sent is larger than any portal form.';
const CHARSETS = ['utf-8', 'iso-8859-1'];

/** A form is refused with 415 in these words when it is not one the portal's pages send. */
function unsupported(message: string): ApiError {
  return new ApiError('unsupported_media_type', message);
}

/** The charset of a posted form, when it is one the portal reads. */
function charsetOf(req: Request): string {
  return contentType.parse(req).parameters.charset?.toLowerCase() ?? 'utf-8';
}

/**
 * 415 before a byte is read for a body that is not a form as the portal's pages send it:
 * `application/x-www-form-urlencoded` in UTF-8 (or ISO-8859-1), uncompressed.
 */
export const requireForm: RequestHandler = (req, _res, next) => {
  if (!req.is('application/x-www-form-urlencoded')) throw unsupported('The portal accepts only its own forms (application/x-www-form-urlencoded).');
  if (!CHARSETS.includes(charsetOf(req)) || !sentUncompressed(req)) throw unsupported('The form must be sent as plain UTF-8, uncompressed.');
  next();
};

/**
 * Reads a posted form (passed `requireForm`) onto `req.body`, a null-prototype record of strings (a
 * repeated field as an array): at most 8 KiB and 10 fields, whole within `timeoutMs`
 * (`BODY_TIMEOUT_MS`). By the one body reader: a declared length over the limit is refused at
 * once, a slow form gets 408, and neither is read to its end.
 */
export function formReader(timeoutMs: number): RequestHandler {
  return (req, res, next) => {
    const charset = charsetOf(req);
    readParsedBody(req, res, { maxBytes: FORM_MAX_BYTES, timeoutMs, tooLargeMessage: FORM_TOO_LARGE }, (raw) => parseForm(raw, charset), next);
  };
}

function parseForm(raw: Buffer, charset: string): ParsedUrlQuery {
  const latin1 = charset === 'iso-8859-1';
  const text = raw.toString(latin1 ? 'latin1' : 'utf8');
  if (text.split('&').length > FORM_MAX_FIELDS) throw new ApiError('payload_too_large', FORM_TOO_LARGE);
  // Percent-escapes are bytes of the form's charset: in ISO-8859-1 each is one character.
  const decodeURIComponent = latin1 ? (value: string) => value.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : undefined;
  return parseQueryString(text, '&', '=', { maxKeys: 0, ...(decodeURIComponent ? { decodeURIComponent } : {}) });
}

/** A text field of the posted form: '' when absent; a repeated field is refused. */
export function field(req: Request, name: string): string {
  const value: unknown = (req.body as Record<string, unknown> | undefined)?.[name];
  if (value === undefined) return '';
  if (typeof value !== 'string') throw new ApiError('invalid_body', `The form field "${name}" was sent more than once.`);
  return value;
}

const EXPIRY_INPUT = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2}(?:\.\d{1,3})?)?$/;

/** The create-key form: an optional name, a read-only box, an optional expiry (a datetime-local value, read as UTC). */
export function newKeyForm(req: Request): NewKeyInput {
  // Its length is the admin schema's rule, checked by the account service.
  const name = field(req, 'name').trim();
  const access = field(req, 'access');
  if (access !== '' && access !== 'read-only') throw new ApiError('invalid_body', 'The form field "access" may only be "read-only".');
  const expiry = field(req, 'expiresAt').trim();
  const parts = EXPIRY_INPUT.exec(expiry);
  if (expiry !== '' && !parts) throw new ApiError('invalid_body', 'Enter the expiry as a date and a time (UTC), or leave it empty for a key that never expires.');
  return {
    ...(name === '' ? {} : { name }),
    ...(access === 'read-only' ? { access } : {}),
    ...(parts ? { expiresAt: `${parts[1]}T${parts[2]}${parts[3] ?? ':00'}Z` } : {}),
  };
}

/** The roll form's grace period: a whole number and a unit. */
export function gracePeriodOf(req: Request): number {
  const amount = field(req, 'grace').trim();
  const unit = GRACE_UNITS.find((candidate) => candidate.name === field(req, 'graceUnit'));
  if (!/^[0-9]{1,7}$/.test(amount) || !unit) throw new ApiError('invalid_body', 'Enter the grace period as a whole number of seconds, minutes, hours or days.');
  return Number(amount) * unit.seconds;
}

/** The page of keys the dashboard's "next page" link asked for (`?cursor=`, as it handed out); undefined for the first. */
export function keysPageOf(req: Request): KeyPosition | undefined {
  const cursor = req.query.cursor;
  if (cursor === undefined) return undefined;
  const position = typeof cursor === 'string' ? parseKeysCursor(cursor) : undefined;
  if (position === undefined) throw new ApiError('invalid_parameter', 'The cursor in this address is not one the portal gave out: follow the dashboard\'s "Next page of keys" link, or start again from the dashboard.');
  return position;
}
