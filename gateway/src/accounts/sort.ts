import type { ApiKeyRecord } from './types';

/** An account's keys in the order every store lists them: oldest first, then by id. */
export function sortKeys(keys: ApiKeyRecord[]): ApiKeyRecord[] {
  return keys.sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1));
}
