import type { Request } from 'express';
import type { KeyPosition } from '../accounts/account-views';
import type { NewKeyInput } from '../accounts/schemas';
import { parseKeysCursor } from '../admin/cursor';
import { GRACE_UNITS } from './key-pages';
import { PortalRefusal } from './portal-refusal';

/** The portal's form fields (and the dashboard's one query parameter), read as the account service takes them; what the service checks is left to it. */

/** A text field of the posted form: '' when absent; a repeated field is refused. */
export function field(req: Request, name: string): string {
  const value: unknown = (req.body as Record<string, unknown> | undefined)?.[name];
  if (value === undefined) return '';
  if (typeof value !== 'string') throw new PortalRefusal(400, `The form field "${name}" was sent more than once.`);
  return value;
}

const EXPIRY_INPUT = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2}(?:\.\d{1,3})?)?$/;

/** The create-key form: an optional name, a read-only box, an optional expiry (a datetime-local value, read as UTC). */
export function newKeyForm(req: Request): NewKeyInput {
  // Its length is the admin schema's rule, checked by the account service.
  const name = field(req, 'name').trim();
  const access = field(req, 'access');
  if (access !== '' && access !== 'read-only') throw new PortalRefusal(400, 'The form field "access" may only be "read-only".');
  const expiry = field(req, 'expiresAt').trim();
  const parts = EXPIRY_INPUT.exec(expiry);
  if (expiry !== '' && !parts) throw new PortalRefusal(400, 'Enter the expiry as a date and a time (UTC), or leave it empty for a key that never expires.');
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
  if (!/^[0-9]{1,7}$/.test(amount) || !unit) throw new PortalRefusal(400, 'Enter the grace period as a whole number of seconds, minutes, hours or days.');
  return Number(amount) * unit.seconds;
}

/** The page of keys the dashboard's "next page" link asked for (`?cursor=`, as it handed out); undefined for the first. */
export function keysPageOf(req: Request): KeyPosition | undefined {
  const cursor = req.query.cursor;
  if (cursor === undefined) return undefined;
  const position = typeof cursor === 'string' ? parseKeysCursor(cursor) : undefined;
  if (position === undefined) throw new PortalRefusal(400, 'The cursor in this address is not one the portal gave out: follow the dashboard\'s "Next page of keys" link, or start again from the dashboard.');
  return position;
}
