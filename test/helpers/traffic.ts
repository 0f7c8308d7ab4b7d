import http from 'node:http';
import { sleep, waitFor } from './ports';
import { TEST_ADMIN_TOKEN } from './system';

/** One HTTP answer, with headers lower-cased and the body parsed when it is JSON. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  /** The parsed JSON body, or undefined when the body is empty or not JSON. */
  json: Record<string, unknown> | undefined;
  text: string;
  /** Wall-clock time from sending the request to the end of the body. */
  ms: number;
  /** When the body ended (Unix ms): what the reply's times are read against, not when a test looks at it. */
  receivedAt: number;
}

export interface CallOptions {
  method?: string;
  /** An API key, sent as `Authorization: Bearer <key>`. */
  key?: string;
  headers?: Record<string, string>;
  /** Serialised as JSON (with `Content-Type: application/json`) unless it is already a string. */
  body?: unknown;
  /**
   * The local address to connect from (e.g. 127.0.0.7): lets a test be a distinct client IP
   * without any proxy header. Uses node:http instead of fetch, which cannot choose it.
   */
  localAddress?: string;
}

/** Sends one request over real HTTP (global fetch, or node:http when a local address is asked for). */
export async function call(url: string, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key !== undefined) headers['authorization'] = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  }
  const method = options.method ?? 'GET';
  const started = performance.now();
  if (options.localAddress) return viaNodeHttp(url, method, headers, body, options.localAddress, started);

  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  const ms = performance.now() - started;
  const lowered: Record<string, string> = {};
  response.headers.forEach((value, name) => (lowered[name.toLowerCase()] = value));
  return { status: response.status, headers: lowered, json: parseJson(text), text, ms, receivedAt: Date.now() };
}

function viaNodeHttp(url: string, method: string, headers: Record<string, string>, body: string | undefined, localAddress: string, started: number): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers, localAddress, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        const lowered: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) lowered[name] = Array.isArray(value) ? value.join(', ') : value;
        resolve({ status: response.statusCode ?? 0, headers: lowered, json: parseJson(text), text, ms: performance.now() - started, receivedAt: Date.now() });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

function parseJson(text: string): Record<string, unknown> | undefined {
  if (!text) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Fires `count` requests at once and waits for all of them. */
export function burst(count: number, send: (index: number) => Promise<Reply>): Promise<Reply[]> {
  return Promise.all(Array.from({ length: count }, (_, index) => send(index)));
}

/** Sends requests one after the other. */
export async function sequence(count: number, send: (index: number) => Promise<Reply>): Promise<Reply[]> {
  const replies: Reply[] = [];
  for (let index = 0; index < count; index += 1) replies.push(await send(index));
  return replies;
}

/** How many replies have each status, e.g. `{ 200: 60, 429: 40 }`, for readable failures. */
export function statusCounts(replies: readonly { status: number }[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const reply of replies) counts[reply.status] = (counts[reply.status] ?? 0) + 1;
  return counts;
}

/** The Error shape of the interface: exactly `{code, message, status}`, status matching the HTTP one. */
export function expectError(reply: Reply, status: number, code: string): void {
  expect({ status: reply.status, code: reply.json?.['code'] }).toEqual({ status, code });
  expect(Object.keys(reply.json ?? {}).sort()).toEqual(['code', 'message', 'status']);
  expect(reply.json?.['status']).toBe(status);
  expect(typeof reply.json?.['message']).toBe('string');
  expect((reply.json?.['message'] as string).length).toBeGreaterThan(0);
}

/** The rate-limit headers of a reply, parsed. */
export interface RateLimitView {
  limit: number;
  remaining: number;
  /** Unix seconds. */
  reset: number;
  policy: string;
  /** The IETF `RateLimit` field, parsed: window name, remaining, seconds until reset. */
  rateLimit: { name: string; r: number; t: number };
  retryAfter: number | undefined;
}

const INTEGER = /^\d+$/;

/**
 * Parses and checks the rate-limit headers every `/v1` reply must carry: the X-RateLimit trio as
 * integers (Reset in Unix seconds, not in the past), `RateLimit-Policy`, and a `RateLimit` field
 * that describes the same window as the trio.
 */
export function rateLimitOf(reply: Reply, nowMs = reply.receivedAt): RateLimitView {
  const h = reply.headers;
  const context = `status ${reply.status}, headers ${JSON.stringify(h)}`;
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    if (!INTEGER.test(h[name] ?? '')) throw new Error(`${name} is missing or not an integer (${context})`);
  }
  const policy = h['ratelimit-policy'];
  const field = h['ratelimit'];
  if (!policy) throw new Error(`RateLimit-Policy is missing (${context})`);
  const match = /^"(minute|day)";r=(\d+);t=(\d+)$/.exec(field ?? '');
  if (!match) throw new Error(`RateLimit is missing or malformed (${context})`);
  const view: RateLimitView = {
    limit: Number(h['x-ratelimit-limit']),
    remaining: Number(h['x-ratelimit-remaining']),
    reset: Number(h['x-ratelimit-reset']),
    policy,
    rateLimit: { name: match[1]!, r: Number(match[2]), t: Number(match[3]) },
    retryAfter: h['retry-after'] === undefined ? undefined : Number(h['retry-after']),
  };
  // Whole seconds, rounded up: never before the moment the reply was read.
  if (view.reset < Math.floor(nowMs / 1000)) throw new Error(`X-RateLimit-Reset ${view.reset} is in the past (now ${nowMs}; ${context})`);
  if (view.remaining > view.limit) throw new Error(`X-RateLimit-Remaining exceeds the limit (${context})`);
  // The IETF field shows the same window as the trio.
  if (view.rateLimit.r !== view.remaining) throw new Error(`RateLimit r differs from X-RateLimit-Remaining (${context})`);
  if (!policy.includes(`"${view.rateLimit.name}";q=${view.limit};`)) throw new Error(`the shown window is not in RateLimit-Policy with q=Limit (${context})`);
  if (Math.abs(view.reset - (nowMs / 1000 + view.rateLimit.t)) > 2) throw new Error(`RateLimit t does not agree with X-RateLimit-Reset (${context})`);
  return view;
}

/** Whether `rateLimitOf` accepts the reply's headers (read against when it arrived, or `nowMs`). */
export function hasRateLimitHeaders(reply: Reply, nowMs = reply.receivedAt): boolean {
  try {
    rateLimitOf(reply, nowMs);
    return true;
  } catch {
    return false;
  }
}

/** One sample value of a Prometheus metric from the gateway's admin `/metrics`, or undefined. */
export async function metricValue(adminUrl: string, name: string): Promise<number | undefined> {
  const response = await fetch(`${adminUrl}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
  const text = await response.text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** The next 00:00 UTC after `nowMs`, in Unix seconds. */
export function nextUtcMidnightSeconds(nowMs: number): number {
  return (Math.floor(nowMs / 86_400_000) + 1) * 86_400;
}

/**
 * Keeps `callers` clients reading `url` with `key`, one request after another, while `during` runs
 * (given the replies so far, to pace itself on them); then stops them and returns every reply.
 */
export async function readsDuring(url: string, key: string, callers: number, during: (replies: readonly Reply[]) => Promise<void>): Promise<Reply[]> {
  let stop = false;
  const replies: Reply[] = [];
  const load = Promise.all(
    Array.from({ length: callers }, async () => {
      while (!stop) replies.push(await call(url, { key }));
    }),
  );
  try {
    await during(replies);
  } finally {
    stop = true;
    await load;
  }
  return replies;
}

/**
 * Reads `url` from 8 callers while `kill` stops a replica: 25 answers before, at least 700 ms and
 * 26 answers after (phases last until they have enough answers: a loaded machine gives fewer in a
 * fixed time). Every reply.
 */
export function readsAcrossKill(url: string, key: string, kill: () => Promise<unknown>): Promise<Reply[]> {
  return readsDuring(url, key, 8, async (replies) => {
    await waitFor(() => replies.length >= 25, 10_000, '25 answers before the kill');
    await kill();
    const atKill = replies.length;
    await sleep(700);
    await waitFor(() => replies.length >= atKill + 26, 10_000, '26 answers after the kill');
  });
}
