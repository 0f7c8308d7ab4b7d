import type { Statement } from 'better-sqlite3';
import type { Attributes } from '@opentelemetry/api';
import { tracing } from '../../../../shared/src/tracing/runtime';

/** The methods that execute a statement (`iterate` is not used here: its span could not cover the rows read later). */
const EXECUTING = ['run', 'get', 'all'] as const;

/**
 * better-sqlite3 has no OpenTelemetry instrumentation: with tracing on, each execution of a
 * prepared statement becomes a client span of its own, a child of the request's span, named and
 * described as the database semantic conventions say (`db.system.name` sqlite, `db.query.text`
 * with its `?` placeholders: never a parameter's value). Outside a request (migrations, the
 * sweeper) no span is made. Off, the statement is returned as it is: no wrapper, no cost.
 *
 * The wrappers are own properties of the statement object, which stays the one `keep-alive.ts`
 * keeps; `raw()` and `pluck()` return that same object, so they stay traced.
 */
export function traceStatement<S extends Statement<unknown[], unknown>>(statement: S, source: string): S {
  const runtime = tracing;
  if (!runtime) return statement;
  const operation = /^\s*([A-Za-z]+)/.exec(source)?.[1]?.toUpperCase() ?? 'SQL';
  const table = /\b(?:FROM|INTO|UPDATE)\s+([A-Za-z_][A-Za-z0-9_]*)/i.exec(source)?.[1];
  const attributes: Attributes = { 'db.system.name': 'sqlite', 'db.operation.name': operation, 'db.query.text': source };
  if (table) attributes['db.collection.name'] = table;
  const name = table ? `${operation} ${table}` : operation;
  for (const method of EXECUTING) {
    const execute = statement[method] as (...parameters: unknown[]) => unknown;
    Object.defineProperty(statement, method, {
      configurable: true,
      writable: true,
      value(this: S, ...parameters: unknown[]) {
        return runtime.inSpan(name, attributes, () => execute.apply(this, parameters));
      },
    });
  }
  return statement;
}
