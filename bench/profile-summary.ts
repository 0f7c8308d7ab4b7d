/**
 * Reads a V8 `.cpuprofile` (from `node --cpu-prof`) and says where the time went: the top functions
 * by self time and by inclusive time, and the time by package, with Node's own internals charged to
 * the package or first-party file that called them (a write to a socket on behalf of pino is pino's
 * cost). Shares are of the busy time (idle excluded).
 *
 *   node dist/bench/profile-summary.js FILE.cpuprofile [--top N]
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface Entry {
  name: string;
  /** Where the function is: `package/file:line`, a first-party path, or a Node internal. */
  where: string;
  ms: number;
  /** Share of the busy time, 0–1. */
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  busyMs: number;
  self: Entry[];
  /** Functions outside Node's internals, by time on the stack. */
  inclusive: Entry[];
  /** Self time by package or first-party folder; Node internals charged to their nearest caller outside Node. */
  byOwner: Entry[];
  /** The same, grouped into the candidates of issue 9 (FEATURES). */
  byFeature: Entry[];
}

/**
 * The candidates of issue 9, each as the owners (packages, first-party modules) whose time is its
 * cost. The first match wins; owners not listed are "other".
 */
export const FEATURES: [string, RegExp][] = [
  ['access log (pino-http, pino, redaction, serializers, sonic-boom)', /^(pino|pino-http|pino-std-serializers|sonic-boom|@pinojs\/redact|fast-redact|thread-stream|quick-format-unescaped|atomic-sleep|on-exit-leak-free|safe-stable-stringify|shared\/src\/logger|shared\/src\/access-log|shared\/src\/redact)$/],
  ['Express, its router and response helpers', /^(express|router|parseurl|finalhandler|etag|fresh|content-type|content-disposition|send|mime-types|mime-db|on-finished|type-is|media-typer|depd|qs|accepts|negotiator|range-parser|statuses|encodeurl|escape-html|vary|merge-descriptors|proxy-addr|forwarded|ipaddr\.js|path-to-regexp|setprototypeof|utils-merge|cookie|debug|ms|http-errors|is-promise|body-parser|raw-body|iconv-lite|bytes|unpipe|ee-first|safe-buffer|inherits)$/],
  ['internal token (jsonwebtoken sign / verify)', /^(jsonwebtoken|jws|jwa|ecdsa-sig-formatter|buffer-equal-constant-time|semver|lodash\.[a-z]+|shared\/src\/internal-token|gateway\/src\/pipeline\/sign-internal-token|pets-service\/src\/http\/authenticate)$/],
  ['metrics (prom-client)', /^(prom-client|bintrees|tdigest|gateway\/src\/metrics)$/],
  ['proxy (http-proxy-middleware, http-proxy)', /^(http-proxy-middleware|http-proxy|follow-redirects|requires-port|eventemitter3|micromatch|is-glob|is-extglob|is-plain-object|braces|picomatch|gateway\/src\/pipeline\/proxy|gateway\/src\/upstream\/[^/]+)$/],
  ['Redis client (ioredis) and the limiter', /^(ioredis|@ioredis\/commands|redis-parser|redis-errors|cluster-key-slot|denque|standard-as-callback|rate-limiter-flexible|gateway\/src\/limits\/[^/]+|gateway\/src\/pipeline\/rate-limit|gateway\/src\/store-errors|gateway\/src\/redis)$/],
  ['API key resolution', /^(gateway\/src\/keys\/[^/]+|gateway\/src\/accounts\/[^/]+|gateway\/src\/pipeline\/identify)$/],
  ['request id (crypto.randomUUID)', /^shared\/src\/request-id$/],
  ['the other /v1 middleware (route table, deprecation, locals, body, public app)', /^(gateway\/src\/pipeline\/[^/]+|gateway\/src\/routes\/[^/]+|gateway\/src\/app)$/],
  ['errors (ApiError, the Error shape)', /^shared\/src\/errors$/],
  ['pets-service routes, query, cursor, validation (ajv)', /^(pets-service\/src\/http\/[^/]+|ajv|fast-uri|fast-deep-equal|json-schema-traverse|shared\/src\/validation|shared\/src\/json-body)$/],
  ['SQLite (better-sqlite3) and the repository', /^(better-sqlite3|bindings|pets-service\/src\/pets\/[^/]+|pets-service\/src\/db\/[^/]+)$/],
  ['garbage collector', /^\(garbage collector\)$/],
  ['Node: HTTP, sockets, timers with no JS caller outside Node', /^(node:.*|\(native\)|\(program\))$/],
];

export function featureOf(owner: string): string {
  return FEATURES.find(([, pattern]) => pattern.test(owner))?.[0] ?? 'other';
}

/** Pseudo-frames that are not code: never an owner, and `(idle)` is not busy time. */
const IDLE = '(idle)';
const PSEUDO = new Set(['(root)', '(program)', '(garbage collector)', IDLE]);

/** `node_modules/<pkg>/…` → the package; the repository's own folders; `node:` internals; natives. */
export function ownerOf(frame: CallFrame): string {
  const url = frame.url;
  if (PSEUDO.has(frame.functionName) && url === '') return frame.functionName;
  if (url === '') return '(native)';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + '/node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  if (url.startsWith('node:')) return 'node';
  const own = /\/dist\/((?:gateway|pets-service|shared|bench)\/src\/[^/]+(?:\/[^/]+)?)\.js$/.exec(url) ?? /\/dist\/(bench\/[^/]+)\.js$/.exec(url);
  if (own) return own[1]!;
  return url.replace(/^file:\/\//, '');
}

function whereOf(frame: CallFrame): string {
  const url = frame.url;
  if (url === '') return '';
  const modules = url.lastIndexOf('/node_modules/');
  const shortUrl = modules >= 0 ? url.slice(modules + '/node_modules/'.length) : url.replace(/^file:\/\/.*?\/dist\//, '').replace(/^file:\/\//, '');
  return `${shortUrl}:${frame.lineNumber + 1}`;
}

function keyOf(frame: CallFrame): string {
  return `${frame.functionName || '(anonymous)'}\u0000${whereOf(frame)}`;
}

/** A stretch of the profile, in the profiler's clock: CLOCK_MONOTONIC µs, as `process.hrtime.bigint() / 1000n`. */
export interface Window {
  fromMicros: number;
  toMicros: number;
}

export function summarise(profile: CpuProfile, top = 20, window?: Window): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const owners = new Map<string, number>();
  let totalUs = 0;
  let busyUs = 0;
  // Each sample's weight is the time since the previous one.
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const weight = Math.max(0, profile.timeDeltas[i] ?? 0);
    at += profile.timeDeltas[i] ?? 0;
    if (window && (at < window.fromMicros || at > window.toMicros)) return;
    const node = byId.get(id);
    if (!node) return;
    totalUs += weight;
    if (node.callFrame.functionName === IDLE) return;
    busyUs += weight;
    const key = keyOf(node.callFrame);
    self.set(key, (self.get(key) ?? 0) + weight);

    const seen = new Set<string>();
    let owner: string | undefined;
    let nodeModule: string | undefined;
    for (let frameId: number | undefined = id; frameId !== undefined; frameId = parent.get(frameId)) {
      const frame = byId.get(frameId)!.callFrame;
      if (nodeModule === undefined && frame.url.startsWith('node:')) nodeModule = frame.url;
      const k = keyOf(frame);
      const o = ownerOf(frame);
      // Node's own frames (emit, the HTTP parser's callbacks, the tick queue) sit under almost everything.
      if (!seen.has(k) && !PSEUDO.has(frame.functionName) && o !== 'node' && o !== '(native)') {
        seen.add(k);
        inclusive.set(k, (inclusive.get(k) ?? 0) + weight);
      }
      if (owner === undefined && o !== 'node' && o !== '(native)' && o !== '(root)') owner = o;
    }
    // No JS caller outside Node (socket reads and writes, the HTTP parser, timers): named by the Node module.
    const charged = owner ?? nodeModule ?? ownerOf(node.callFrame);
    owners.set(charged, (owners.get(charged) ?? 0) + weight);
  });

  const features = new Map<string, number>();
  for (const [owner, us] of owners) features.set(featureOf(owner), (features.get(featureOf(owner)) ?? 0) + us);
  const entries = (map: Map<string, number>, named: boolean): Entry[] =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, us]) => {
        const [name = '', where = ''] = named ? key.split('\u0000') : [key, ''];
        return { name, where, ms: Math.round(us / 100) / 10, share: busyUs > 0 ? Math.round((us / busyUs) * 1000) / 1000 : 0 };
      });
  return {
    totalMs: Math.round(totalUs / 1000),
    busyMs: Math.round(busyUs / 1000),
    self: entries(self, true),
    inclusive: entries(inclusive, true),
    byOwner: entries(owners, false),
    byFeature: entries(features, false),
  };
}

/** `requests`: how many requests the profiled window served, to show each entry in µs per request too. */
export function summaryText(title: string, s: ProfileSummary, requests?: number): string {
  const perRequest = (ms: number) => (requests ? `  ${((ms * 1000) / requests).toFixed(1).padStart(6)} µs/req` : '');
  const list = (entries: Entry[]) =>
    entries.map((e) => `  ${(e.share * 100).toFixed(1).padStart(5)} %${perRequest(e.ms)}  ${e.name}${e.where ? `  (${e.where})` : ''}`).join('\n');
  return [
    `${title}: ${s.busyMs} ms busy of ${s.totalMs} ms sampled${requests ? `, ${requests} requests, ${((s.busyMs * 1000) / requests).toFixed(0)} µs busy per request (under the profiler)` : ''}`,
    'Self time, top functions:',
    list(s.self),
    'Inclusive time, top functions outside Node internals:',
    list(s.inclusive),
    'Self time by owner (Node internals charged to the nearest caller outside Node):',
    list(s.byOwner),
    'By candidate (owners grouped):',
    list(s.byFeature),
    '',
  ].join('\n');
}

if (require.main === module) {
  const [file, flag, n] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node dist/bench/profile-summary.js FILE.cpuprofile [--top N]\n');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  process.stdout.write(summaryText(file, summarise(profile, flag === '--top' ? Number(n) : 20)));
}
