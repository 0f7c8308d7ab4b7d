/** A write the store refuses: creating what exists, or updating what does not. A bug in the caller, not a client error. */
export class StoreConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreConflictError';
  }
}
