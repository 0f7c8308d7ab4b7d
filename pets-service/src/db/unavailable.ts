/**
 * The one place that decides which database failures are "unavailable, retry shortly" (503 with
 * Retry-After, mapped in `http/database-unavailable.ts`) rather than a fault of this service (500).
 * Both engines' repositories run every statement through `guarded()`.
 */
export class DatabaseUnavailableError extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'DatabaseUnavailableError';
  }
}

/** Runs a statement; a failure that says the database is busy, gone or saturated becomes a DatabaseUnavailableError. */
export async function guarded<T>(statement: () => T | Promise<T>): Promise<T> {
  try {
    return await statement();
  } catch (error) {
    if (isDatabaseUnavailable(error)) {
      throw new DatabaseUnavailableError(`database unavailable: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    throw error;
  }
}

export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (SQLITE_CONTENTION.test(code) || POSTGRES_UNAVAILABLE.test(code) || NETWORK_FAILURES.has(code))) return true;
  return typeof message === 'string' && PG_DRIVER_FAILURES.test(message);
}

/**
 * SQLite: another connection held the lock past the busy timeout. Judged by the SqliteError's code
 * alone, no `instanceof`: the native addon keeps the error class of the first copy of better-sqlite3
 * loaded in the process, which need not be this module's copy (or even this realm's Error, as under jest).
 * Extended codes such as SQLITE_BUSY_SNAPSHOT or SQLITE_LOCKED_SHAREDCACHE mean the same here.
 */
const SQLITE_CONTENTION = /^SQLITE_(BUSY|LOCKED)(_|$)/;

/**
 * PostgreSQL SQLSTATEs (Appendix A of its manual) that say "not now" rather than "never":
 * 08 connection exceptions; 53 insufficient resources (too many connections, disk full, out of memory);
 * 57 operator intervention (57014 query_canceled is the statement timeout; 57P01 admin_shutdown,
 * 57P03 cannot_connect_now while starting or recovering); 58 system errors (I/O);
 * 40001 serialization failure and 40P01 deadlock (a retry succeeds); 55P03 lock_not_available;
 * 25006 read_only_sql_transaction (connected to a standby during a failover).
 * Everything else (syntax, constraint, authentication) is a fault of this service: 500.
 */
const POSTGRES_UNAVAILABLE = /^(?:(?:08|53|57|58)[0-9A-Z]{3}|40001|40P01|55P03|25006)$/;

/** Node's socket errors: the server is not there, or went away. */
const NETWORK_FAILURES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * What node-postgres and pg-pool say, with no code, when a connection could not be had in time
 * (`connectionTimeoutMillis`), was lost mid-statement, or gave no answer within `query_timeout`.
 * Matched on text because that is all they carry; the tests in `pets-service/test/database-unavailable.test.ts`
 * provoke each of them against a real server, so a driver that rewords one fails there.
 */
const PG_DRIVER_FAILURES = /^(?:timeout exceeded when trying to connect|Connection terminated|Query read timeout|Client has encountered a connection error|Client was closed)/;
