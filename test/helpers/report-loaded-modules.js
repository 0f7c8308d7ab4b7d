// Preloaded into a service (NODE_OPTIONS=--require …) by the tracing test: when the process exits,
// it writes to stderr how many modules of the OpenTelemetry SDK it had loaded, so the test can tell
// that a service with tracing off never loaded one (and, as a check of this check, that one with
// tracing on did). @opentelemetry/api is not counted: prom-client loads it in every process (to put
// trace ids on exemplars) and, with no SDK registered, it is a facade whose calls do nothing.
const { writeSync } = require('node:fs');

process.once('exit', () => {
  const loaded = Object.keys(require.cache).filter((file) => file.includes('/node_modules/@opentelemetry/') && !file.includes('/node_modules/@opentelemetry/api/'));
  writeSync(2, `\nopentelemetry-sdk-modules-loaded: ${loaded.length}\n`);
});
