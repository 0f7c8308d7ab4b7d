import Database from 'better-sqlite3';
import { traceStatement } from './statement-spans';

/**
 * better-sqlite3 12 on Node ≥ 24.19 aborts the whole process (SIGABRT, "Assertion failed: (env) !=
 * nullptr" in node::RemoveEnvironmentCleanupHook) when the garbage collector finalises one of its
 * Database or Statement objects outside a JavaScript context, as an idle-time GC does: Node 24.19
 * made node::ObjectWrap's destructor need the environment, and better-sqlite3 < 13 is built on it.
 * Reproduced here: a loop of `db.pragma()` calls (each prepares a throw-away Statement) on Node
 * 24.21 aborts within seconds. better-sqlite3 13 (N-API) fixes it but needs Node 22, and Node 20 is
 * still supported (ADR 0002).
 *
 * So no object of better-sqlite3 is ever allowed to become garbage: every Database and Statement
 * this service (and its tests) creates goes through here and is kept until the process exits. It
 * costs nothing in the service (one Database and a handful of Statements, all long-lived anyway);
 * `db.pragma()`, which prepares a Statement per call out of reach, is not used: `pragma()` below
 * keeps the one it prepares. A closed Database's statements are finalised by SQLite on close, so
 * what stays behind in tests is a few small wrappers.
 */
const keptForLife: object[] = [];

function keep<T extends object>(object: T): T {
  keptForLife.push(object);
  return object;
}

/** `new Database(file, options)`, kept alive for the life of the process. */
export function openDatabase(file: string, options?: Database.Options): Database.Database {
  return keep(new Database(file, options));
}

/** `db.prepare(source)`, the Statement kept alive for the life of the process (and traced, when tracing is on: `statement-spans.ts`). */
export function prepare<Parameters extends unknown[] = unknown[], Row = unknown>(db: Database.Database, source: string): Database.Statement<Parameters, Row> {
  return keep(traceStatement(db.prepare<Parameters, Row>(source), source));
}

/** `PRAGMA <source>`: the first column of the first row when it returns one (as `db.pragma(source, { simple: true })`). */
export function pragma(db: Database.Database, source: string): unknown {
  const statement = prepare(db, `PRAGMA ${source}`);
  if (!statement.reader) {
    statement.run();
    return undefined;
  }
  return statement.pluck().get();
}
