/**
 * A copy of this checkout's build with one feature of the gateway taken away, so that
 * `bench/gc.ts --variant` and `bench/instructions.ts` can measure what that feature costs a request against the build as it is,
 * alternated in one run (issue 29: bisecting the 429 path).
 *
 *   node dist/bench/patched-build.js VARIANT OUT_DIR     (VARIANT: one of `PATCHES`, or `list`)
 *
 * The copy holds everything the gateway reads at run time (dist, the portal's and docs' assets
 * under gateway/src, package.json) and links node_modules. Each patch replaces text of the compiled
 * JavaScript that must occur exactly once: when the code it names changes, the tool says so rather
 * than measuring a build it did not patch. A copy patched this way answers wrongly on purpose (a
 * fixed 429, no headers…): it is for measuring only.
 */
import { cpSync, existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './processes';

export interface Patch {
  /** A compiled file, relative to dist/. */
  file: string;
  /** Text to find exactly once, or a pattern (matched once) where the text is a run of lines. */
  find: string | RegExp;
  replace: string;
}

interface Variant {
  /** What the copy no longer does. */
  what: string;
  patches: Patch[];
}

/** A refusal body about as long as the gateway's (its code and message), written by no code of the gateway's. */
const FIXED_BODY = JSON.stringify({ error: { code: 'rate_limited', message: "Rate limit exceeded: the account's per-minute limit is used up; retry after 60 seconds." } });
const FIXED_429 =
  `res.statusCode = 429; res.setHeader('Content-Type', 'application/json; charset=utf-8'); ` +
  `res.setHeader('Content-Length', ${Buffer.byteLength(FIXED_BODY)}); res.end(${JSON.stringify(FIXED_BODY)});`;

/**
 * A fixed 429 where the middleware returned after `find` (a `return (req, res, next) => {` that
 * makes a stage's handler) would begin: that handler is kept, unused, so the file still compiles.
 */
const answeredAt = (file: string, find: string): Patch => ({
  file,
  find,
  replace: `return (req, res, next) => { ${FIXED_429} };\n    const unused = ${find.slice('return '.length)}`,
});

export const PATCHES: Record<string, Variant> = {
  'as-built': { what: 'nothing: the copy as built (an A/A check of the copy against the checkout)', patches: [] },
  'floor-handle': {
    what: "every /v1 request answered a fixed 429 by the server's own request handler, before Express (the floor of Node's HTTP server here)",
    patches: [
      {
        file: 'shared/src/http-server.js',
        find: 'const handle = (req, res) => {',
        replace: `const handle = (req, res) => {\n        if (req.url.startsWith('/v1/')) { ${FIXED_429} return; }`,
      },
    ],
  },
  'floor-app': {
    what: 'every /v1 request answered a fixed 429 by the first middleware of the Express app (no request id, access log or metrics)',
    patches: [
      {
        file: 'gateway/src/app.js',
        find: 'app.use((0, in_order_1.inOrder)([request_id_1.requestId,',
        replace: `app.use('/v1', (req, res) => { ${FIXED_429} });\n    app.use((0, in_order_1.inOrder)([request_id_1.requestId,`,
      },
    ],
  },
  'floor-v1': {
    what: "every /v1 request answered a fixed 429 by a bare Express middleware before the pipeline (request id, access log and metrics still run)",
    patches: [
      {
        file: 'gateway/src/app.js',
        find: "app.use('/v1', (0, stages_1.v1Pipeline)",
        replace: `app.use('/v1', (req, res) => { ${FIXED_429} });\n    app.use('/v1', (0, stages_1.v1Pipeline)`,
      },
    ],
  },
  'floor-identify': {
    what: 'every /v1 request answered a fixed 429 where the identify stage begins (the stages before it run)',
    patches: [answeredAt('gateway/src/pipeline/identify.js', 'return (req, res, next) => {')],
  },
  'floor-rate-limit': {
    what: 'every /v1 request answered a fixed 429 where the rate-limit stage begins (the key identified, not charged)',
    patches: [answeredAt('gateway/src/pipeline/rate-limit.js', 'return (req, res, next) => {\n        const { principal }')],
  },
  'floor-proxy': {
    what: 'every /v1 request answered a fixed 429 where the proxy stage begins (the key identified and charged in Redis, nothing sent to the pets-service)',
    patches: [answeredAt('gateway/src/pipeline/proxy.js', 'return (req, res, next) => {')],
  },
  'no-duration': {
    what: 'no request duration in the metrics (the request count still taken)',
    patches: [{ file: 'gateway/src/metrics.js', find: 'timer.observe((performance.now() - started) / 1000);', replace: '' }],
  },
  'no-access-log': {
    what: "no access log line and no response metrics (the access log takes them); req.log still there",
    patches: [{ file: 'shared/src/access-log.js', find: 'return (req, res, next) => {', replace: 'return (req, res, next) => next();\n    const unused = (req, res, next) => {' }],
  },
  'no-response-metrics': {
    what: "no request count or duration in the metrics (the access log's line still written)",
    patches: [{ file: 'gateway/src/app.js', find: '{ onResponse: metrics.observeResponse }', replace: '{}' }],
  },
  'node-keep-alive-timer': {
    what: "no sweep of idle connections: Node's keep-alive timer instead, set as each response finishes and cleared by the next request (as before ADR 0042)",
    patches: [
      { file: 'shared/src/http-server.js', find: 'server.keepAliveTimeout = 0;', replace: 'server.keepAliveTimeout = timeouts.keepAliveTimeoutMs;' },
      { file: 'shared/src/http-server.js', find: 'if (timeouts.keepAliveTimeoutMs > 0)', replace: 'if (false)' },
    ],
  },
  'objects-born-small': {
    what: "requests and responses born without Node's own fields declared (as before): on Node 20 each response becomes a dictionary as Node's constructor fills it",
    patches: ['AppRequest(socket)', 'AppResponse(req, options)'].map((constructor) => ({
      file: 'shared/src/app-prototypes.js',
      // The run of `this.x = undefined;` lines that opens the constructor, before Node's own constructor is called.
      find: new RegExp(`(?<=function ${constructor.replace(/[()]/g, '\\$&')} \\{\\n)(?:\\s+this\\.\\w+ = undefined;\\n)+(?=\\s+node_http_1)`),
      replace: '',
    })),
  },
  'node-classes-on-node-24': {
    what: "Node's own request and response classes on V8 13 and later (Node 24), as before: Express swaps each one's prototype",
    patches: [{ file: 'shared/src/app-prototypes.js', find: 'function appPrototypeClasses(app) {', replace: 'function appPrototypeClasses(app) {\n    if (Number.parseInt(process.versions.v8, 10) >= 13) return {};' }],
  },
  'no-access-line': {
    what: 'no access log line (the response metrics still taken)',
    patches: [{ file: 'shared/src/access-log.js', find: 'function writeAccessLine(logger, direct, res, reqId, url, started, extra) {', replace: 'function writeAccessLine(logger, direct, res, reqId, url, started, extra) {\n    return;' }],
  },
  'no-request-id': {
    what: 'no request id (neither read nor made, no X-Request-Id)',
    patches: [{ file: 'gateway/src/app.js', find: '[request_id_1.requestId, ', replace: '[' }],
  },
  'no-deprecation': {
    what: 'no deprecation stage (the route is then matched by the route stage)',
    patches: [{ file: 'gateway/src/pipeline/stages.js', find: 'middleware: [deprecation_1.markDeprecated]', replace: 'middleware: []' }],
  },
  'no-rate-limit-headers': {
    what: 'no rate-limit headers on any answer',
    patches: [{ file: 'gateway/src/pipeline/rate-limit.js', find: 'const headers = (0, headers_1.rateLimitHeaders)(decision, Date.now());', replace: 'const headers = {};' }],
  },
  'no-decision-hooks': {
    what: "no decision metrics and no usage board or key's last use",
    patches: [
      { file: 'gateway/src/pipeline/rate-limit.js', find: "options.onDecision(decision.outcome, 'key');", replace: '' },
      { file: 'gateway/src/pipeline/rate-limit.js', find: 'options.onKeyDecision?.(principal, decision);', replace: '' },
    ],
  },
  'raw-error': {
    what: "the error handler writes a fixed 429 in place of the Error shape's answer",
    patches: [{ file: 'shared/src/errors.js', find: 'sendError(res, known ?? internalError());', replace: FIXED_429 }],
  },
  'close-once': {
    what: "the access log's and the proxy's 'close' listeners added with `once` (as before issue 29's cut), not `on`",
    patches: [
      { file: 'shared/src/access-log.js', find: "res.on('close', () => {", replace: "res.once('close', () => {" },
      { file: 'gateway/src/upstream/pets-proxy.js', find: "answer.on('close', () => {", replace: "answer.once('close', () => {" },
      { file: 'gateway/src/upstream/pets-proxy.js', find: "res.on('close', onClientClose);", replace: "res.once('close', onClientClose);" },
    ],
  },
  'bare-handle': {
    what: "the server hands requests to the app with no tracking for the drain, no header-count check and no unread-body watch",
    patches: [{ file: 'shared/src/http-server.js', find: 'const handle = (req, res) => {', replace: 'const handle = (req, res) => app(req, res);\n    const unusedHandle = (req, res) => {' }],
  },
};

/** `text` (of `patch.file`) patched; an error when what the patch replaces is not there exactly once. */
export function patchedText(text: string, { file, find, replace }: Patch): string {
  const count = typeof find === 'string' ? text.split(find).length - 1 : (text.match(new RegExp(find.source, 'g')) ?? []).length;
  if (count !== 1) throw new Error(`${file}: ${typeof find === 'string' ? JSON.stringify(find) : String(find)} occurs ${count} times, not once: the patch no longer fits the code`);
  return text.replace(find, () => replace);
}

function applyPatch(dist: string, patch: Patch): void {
  const at = path.join(dist, patch.file);
  writeFileSync(at, patchedText(readFileSync(at, 'utf8'), patch));
}

/** Makes OUT a copy of this checkout's build with `variant`'s patches; returns its gateway's entry point. */
export function patchedBuild(variant: string, out: string): string {
  const chosen = PATCHES[variant];
  if (!chosen) throw new Error(`no variant ${variant}: one of ${Object.keys(PATCHES).join(', ')}`);
  if (!existsSync(path.join(ROOT, 'dist/gateway/src/main.js'))) throw new Error('no build here: npm run build first');
  rmSync(out, { recursive: true, force: true });
  for (const part of ['dist', 'gateway', 'shared', 'pets-service', 'package.json']) {
    cpSync(path.join(ROOT, part), path.join(out, part), { recursive: true });
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(out, 'node_modules'), 'dir');
  for (const patch of chosen.patches) applyPatch(path.join(out, 'dist'), patch);
  return path.join(out, 'dist/gateway/src/main.js');
}

if (require.main === module) {
  const [variant, out] = process.argv.slice(2);
  if (variant === 'list' || !variant || !out) {
    for (const [name, { what }] of Object.entries(PATCHES)) process.stdout.write(`${name.padEnd(24)} ${what}\n`);
    process.exit(variant === 'list' ? 0 : 2);
  }
  process.stdout.write(`${patchedBuild(variant, path.resolve(out))}\n`);
}
