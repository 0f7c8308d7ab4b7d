/** The store could not be reached or did not answer in time (e.g. Redis down): a 503, never a 404. */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`account store unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'StoreUnavailableError';
  }
}

/** A write the store refuses: creating what exists, or updating what does not. A bug in the caller, not a client error. */
export class StoreConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreConflictError';
  }
}
