// The e2e tier's set-up: its tests spawn the compiled services, so build them once per run.
// The build only emits (--noCheck): the project is type-checked once per run, by
// test/typecheck.test.ts, not again here.
const { execFileSync } = require('node:child_process');
const path = require('node:path');

module.exports = async function globalSetup() {
  const root = path.resolve(__dirname, '..', '..');
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--noCheck'], {
    cwd: root,
    stdio: 'inherit',
  });
  // The client package (@animal-store/client) as `npm run build` makes it: its types from the compiled document, then its code.
  execFileSync(process.execPath, [path.join(root, 'client/scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
};
