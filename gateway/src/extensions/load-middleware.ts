import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RequestHandler } from 'express';
import { ConfigError } from '../../../shared/src/env';

/**
 * Loads the operator's middleware (`GATEWAY_MIDDLEWARE`, docs/extending.md): each module's default
 * export is an Express middleware or an array of them, kept in the order given. A module that
 * cannot be loaded, or exports no middleware, refuses the start-up with a ConfigError naming it,
 * every such module at once, the way a bad variable does.
 *
 * `import()` loads CommonJS and ES modules alike (tsc keeps it as a real dynamic import under
 * `module: node16`), and an ES module with top-level await too, which `require` would not.
 */
export async function loadOperatorMiddleware(modules: readonly string[], workingDirectory = process.cwd()): Promise<RequestHandler[]> {
  const problems: string[] = [];
  const loaded: RequestHandler[] = [];
  for (const given of modules) {
    const file = path.resolve(workingDirectory, given);
    const named = file === given ? `"${given}"` : `"${given}" (${file})`;
    let namespace: unknown;
    try {
      namespace = await import(pathToFileURL(file).href);
    } catch (error) {
      problems.push(`GATEWAY_MIDDLEWARE: the module ${named} could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    const middleware = middlewareOf(defaultExportOf(namespace));
    if (typeof middleware === 'string') problems.push(`GATEWAY_MIDDLEWARE: the module ${named} ${middleware}`);
    else loaded.push(...middleware);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return loaded;
}

/**
 * An ES module's `default`; a CommonJS module's `module.exports`, which Node gives as `default`, or
 * its `exports.default` when it was compiled from ES syntax (`__esModule`, as tsc and Babel mark it).
 */
function defaultExportOf(namespace: unknown): unknown {
  const exported = (namespace as { default?: unknown }).default;
  if (typeof exported === 'object' && exported !== null && (exported as { __esModule?: unknown }).__esModule === true) {
    return (exported as { default?: unknown }).default;
  }
  return exported;
}

/** The middleware a default export holds, or what is wrong with it (finishing "the module … "). */
function middlewareOf(exported: unknown): RequestHandler[] | string {
  const list = Array.isArray(exported) ? (exported as unknown[]) : [exported];
  if (exported === undefined) return 'has no default export: export an Express middleware (req, res, next) or an array of them';
  if (list.length === 0) return 'exports an empty array: export an Express middleware (req, res, next) or an array of them';
  for (const [i, item] of list.entries()) {
    const where = Array.isArray(exported) ? `item ${i + 1} of its default export` : 'its default export';
    if (typeof item !== 'function') return `exports no middleware: ${where} is ${item === null ? 'null' : typeof item}, not a function (req, res, next)`;
    // Express takes a function of four parameters for an error handler and skips it on every
    // request that has not failed: mounted here, it would silently never run.
    if (item.length > 3) return `exports no middleware: ${where} takes ${item.length} parameters, an error handler; a middleware takes (req, res, next)`;
  }
  return list as RequestHandler[];
}
