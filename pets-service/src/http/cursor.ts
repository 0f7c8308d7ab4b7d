import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * The list cursor: `<base64url(last id)>.<base64url(HMAC-SHA256 of that, first 128 bits)>`.
 * Opaque to clients and unforgeable without the internal-token secret, so a cursor is either
 * one this service handed out or refused; the key is derived under its own label so it is
 * never the JWT signing key itself. Rotating the secret invalidates outstanding cursors.
 */
const KEY_LABEL = 'pets-service list cursor v1';
const TAG_BYTES = 16;
const CURSOR = /^([A-Za-z0-9_-]{1,24})\.([A-Za-z0-9_-]{22})$/;
const CANONICAL_ID = /^[1-9][0-9]{0,15}$/;
const ISSUED_KEPT = 1_024;

export interface CursorCodec {
  encode(lastId: number): string;
  /** The id the cursor points after, or undefined for anything this service did not issue. */
  decode(cursor: string): number | undefined;
}

export function createCursorCodec(secret: string): CursorCodec {
  const key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), KEY_LABEL, 32));
  // Compared as text, not decoded bytes: base64url's spare trailing bits would otherwise let
  // several spellings of one tag pass, and only the exact string handed out is valid.
  const tagOf = (payload: string) => createHmac('sha256', key).update(payload).digest().subarray(0, TAG_BYTES).toString('base64url');

  // A cursor is a pure function of the id; the page boundaries clients walk repeat (the first pages
  // most), so the last ones handed out are kept instead of signed again (an HMAC per list request).
  const issued = new Map<number, string>();
  return {
    encode(lastId) {
      const known = issued.get(lastId);
      if (known !== undefined) return known;
      const payload = Buffer.from(String(lastId), 'utf8').toString('base64url');
      const cursor = `${payload}.${tagOf(payload)}`;
      if (issued.size >= ISSUED_KEPT) issued.delete(issued.keys().next().value!);
      issued.set(lastId, cursor);
      return cursor;
    },
    decode(cursor) {
      const match = CURSOR.exec(cursor);
      if (!match) return undefined;
      const [, payload = '', tag = ''] = match;
      if (!timingSafeEqual(Buffer.from(tag), Buffer.from(tagOf(payload)))) return undefined;
      const id = Buffer.from(payload, 'base64url').toString('utf8');
      return CANONICAL_ID.test(id) && Number.isSafeInteger(Number(id)) ? Number(id) : undefined;
    },
  };
}
