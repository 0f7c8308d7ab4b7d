import type { Pet } from '../../../shared/src/pets';
import type { InternalClaims } from '../../../shared/src/internal-token';

/** How long a key is remembered after its first request (the contract: 24 hours). */
export const RETENTION_MS = 24 * 60 * 60 * 1000;

/** The answer a create gave, stored with its pet, so that a retry gets the same bytes back. */
export interface StoredAnswer {
  readonly status: number;
  /** The body, as sent. */
  readonly body: string;
  readonly location: string;
}

/** A create that carries an `Idempotency-Key`. */
export interface IdempotentCreate {
  /** Whose key it is (`ownerOf`): keys of different accounts never meet. */
  readonly owner: string;
  readonly key: string;
  /** `fingerprintOf` the request's JSON value. */
  readonly fingerprint: string;
  /** The answer to store for the pet just created, in the same transaction. */
  answerFor(pet: Pet): StoredAnswer;
}

export type IdempotentInsert =
  /** No live record had the key: the pet and its record were committed together. */
  | { readonly outcome: 'created'; readonly answer: StoredAnswer }
  /** A record of the last 24 hours had the key: nothing was written. */
  | { readonly outcome: 'found'; readonly fingerprint: string; readonly answer: StoredAnswer }
  /** Another request with the key is between its check and its commit (PostgreSQL: another transaction holds the key). */
  | { readonly outcome: 'in-flight' };

/**
 * The key's namespace, from the internal token: the gateway's requests belong to the account it
 * names (`gateway acct_…`); another internal service has a namespace of its own (`service:NAME …`),
 * even when it acts for an account. The issuer has no space in it, so the pair is unambiguous.
 */
export function ownerOf(caller: Pick<InternalClaims, 'iss' | 'sub'>): string {
  return `${caller.iss} ${caller.sub}`;
}
