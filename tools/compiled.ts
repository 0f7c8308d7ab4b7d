import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The repository root. This module runs from source (jest: `tools/`) and compiled (the bench:
 * `dist/tools/`), one folder deeper: the root is the nearest folder above holding package.json.
 */
export const ROOT = (() => {
  let folder = path.resolve(__dirname, '..');
  while (!existsSync(path.join(folder, 'package.json'))) {
    const parent = path.dirname(folder);
    if (parent === folder) throw new Error(`no package.json above ${__dirname}`);
    folder = parent;
  }
  return folder;
})();

/** The services' compiled entry points (`npm run build`), which the tests and the bench start as processes. */
export const COMPILED_SERVICES = {
  gateway: path.join(ROOT, 'dist/gateway/src/main.js'),
  pets: path.join(ROOT, 'dist/pets-service/src/main.js'),
};
