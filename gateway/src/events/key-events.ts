import { DEFAULT_KEY_ACCESS, type ApiKeyRecord } from '../accounts/types';
import { newEventId } from './event-bus';
import type { KeyEvent, KeyEventType } from './types';

/** A key event about `key` (never the key itself: its id, name, access and expiry). */
export function keyEvent(type: KeyEventType, key: ApiKeyRecord, at: number, extra: { expiresAt?: string | null; replacedBy?: string } = {}): KeyEvent {
  const expiresAt = extra.expiresAt !== undefined ? extra.expiresAt : (key.expiresAt ?? null);
  return {
    id: newEventId(),
    type,
    at,
    accountId: key.accountId,
    data: {
      accountId: key.accountId,
      keyId: key.id,
      name: key.name ?? null,
      access: key.access ?? DEFAULT_KEY_ACCESS,
      expiresAt,
      ...(extra.replacedBy === undefined ? {} : { replacedBy: extra.replacedBy }),
    },
  };
}
