/** A write the store refuses: creating what exists, or updating what does not. A bug in the caller, not a client error. */
export class StoreConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreConflictError';
  }
}

/**
 * The account's keys changed between the caller's reading of them and its write (another replica
 * added one): the write is not made, and the caller reads again and decides again (the key limits).
 */
export class KeySetChangedError extends StoreConflictError {
  constructor(accountId: string) {
    super(`the keys of account ${accountId} changed meanwhile`);
    this.name = 'KeySetChangedError';
  }
}
