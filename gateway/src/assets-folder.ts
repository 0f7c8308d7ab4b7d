import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * A folder of files served as they are (no build step: ADR 0005), kept in the source tree beside the
 * module that serves it: `assets/` beside `moduleDirectory` when the gateway runs from source
 * (tests), the same folder in the source tree when it runs from `dist/` (the Docker image copies
 * it). `sourceDirectory` is the module's folder from the repository root, e.g. `gateway/src/portal`;
 * `marker` a file the folder must hold. Missing: the gateway does not start, naming `what`.
 */
export function assetsFolder(moduleDirectory: string, sourceDirectory: string, marker: string, what: string): string {
  // dist/gateway/src/portal → four levels up is the repository root.
  const candidates = [path.join(moduleDirectory, 'assets'), path.resolve(moduleDirectory, '..', '..', '..', '..', ...sourceDirectory.split('/'), 'assets')];
  const found = candidates.find((candidate) => existsSync(path.join(candidate, marker)));
  if (!found) throw new Error(`${what} are missing: looked in ${candidates.join(' and ')}`);
  return found;
}
