import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnimalStoreClient, type AnimalStoreClientOptions } from './client';
import { AnimalStoreError } from './errors';

/** What the test server saw of one request. */
interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

type Handler = (req: IncomingMessage, res: ServerResponse, seen: Seen, index: number) => void;

/**
 * A real HTTP server on a free port, answering each request with the next of `handlers` (the last one
 * repeats): the client's retries, waits and headers are observed on the wire, not on a mock.
 */
class ScriptedApi {
  readonly seen: Seen[] = [];
  private constructor(private readonly server: http.Server) {}

  static async start(...handlers: Handler[]): Promise<ScriptedApi> {
    const server = http.createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, at: Date.now() };
        const index = api.seen.push(seen) - 1;
        handlers[Math.min(index, handlers.length - 1)]!(req, res, seen, index);
      });
    });
    const api = new ScriptedApi(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return api;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  client(options: Partial<AnimalStoreClientOptions> = {}): AnimalStoreClient {
    return new AnimalStoreClient({ baseUrl: this.baseUrl, apiKey: 'ask_test_key', ...options });
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const rateLimitHeaders = (remaining = 59, t = 30) => ({
  'X-RateLimit-Limit': '60',
  'X-RateLimit-Remaining': String(remaining),
  'X-RateLimit-Reset': String(Math.ceil(Date.now() / 1000) + t),
  RateLimit: `"minute";r=${remaining};t=${t}`,
});

function json(status: number, body: unknown, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'Content-Type': 'application/json', 'X-Request-Id': `req-${status}`, ...rateLimitHeaders(), ...headers });
    res.end(JSON.stringify(body));
  };
}

const errorAnswer = (status: number, code: string, headers: Record<string, string> = {}) => json(status, { code, message: `the ${code} message`, status }, headers);
const REX = { id: 7, name: 'Rex', categoryId: 1, status: 'available' };
const created: Handler = json(201, REX, { Location: '/v1/pets/7' });
/** Drops the connection without an answer: a network error for the client. */
const hangUp: Handler = (req) => req.socket.destroy();

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.stop();
  api = undefined;
});

/** Polls `check` until it holds, or fails after `timeoutMs` (the client package has no test helpers of the repository). */
async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !check(); await new Promise((resolve) => setTimeout(resolve, 10))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('the call did not reject');
}

describe('AnimalStoreClient against a real HTTP server', () => {
  it('when pets are listed, then the query and the key are sent, and the next cursor comes from the Link header', async () => {
    api = await ScriptedApi.start(json(200, [REX], { Link: '</v1/pets?limit=1&status=available&cursor=abc.def>; rel="next"' }), json(200, []));
    const client = api.client();
    const page = await client.listPets({ limit: 1, status: 'available' });
    expect(page).toEqual({ pets: [REX], nextCursor: 'abc.def' });
    expect(api.seen[0]).toMatchObject({ method: 'GET', url: '/v1/pets?limit=1&status=available', headers: { authorization: 'Bearer ask_test_key' } });
    expect(await client.listPets({ cursor: 'abc.def' })).toEqual({ pets: [], nextCursor: undefined });
    expect(api.seen[1]!.url).toBe('/v1/pets?cursor=abc.def');
    expect(client.rateLimit).toEqual({ limit: 60, remaining: 59, reset: expect.any(Number) });
  });

  it('when pets() is iterated, then it follows every page (absolute links too) and yields each pet once', async () => {
    const pet = (id: number) => ({ ...REX, id });
    api = await ScriptedApi.start(
      json(200, [pet(1), pet(2)], { Link: '<https://api.example/v1/pets?limit=2&cursor=p2>; rel="next"' }),
      json(200, [pet(3), pet(4)], { Link: '</v1/pets?limit=2&cursor=p3>; rel="next"' }),
      json(200, [pet(5)]),
    );
    const ids: number[] = [];
    for await (const one of api.client().pets({ pageSize: 2 })) ids.push(one.id);
    expect(ids).toEqual([1, 2, 3, 4, 5]);
    expect(api.seen.map((s) => s.url)).toEqual(['/v1/pets?limit=2', '/v1/pets?limit=2&cursor=p2', '/v1/pets?limit=2&cursor=p3']);
  });

  it('when a create meets 503, a dropped connection and 502, then every retry carries the same Idempotency-Key and the pet comes back', async () => {
    api = await ScriptedApi.start(errorAnswer(503, 'service_unavailable'), hangUp, errorAnswer(502, 'bad_gateway'), created);
    const pet = await api.client().createPet({ name: 'Rex', categoryId: 1 });
    expect(pet).toEqual(REX);
    const keys = api.seen.map((s) => s.headers['idempotency-key']);
    expect(keys).toHaveLength(4);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(api.seen.every((s) => s.method === 'POST' && s.body === '{"name":"Rex","categoryId":1}')).toBe(true);
  });

  it('when two creates are made, then each has its own key; a key given by the caller is the one sent', async () => {
    api = await ScriptedApi.start(created);
    const client = api.client();
    await client.createPet({ name: 'Rex', categoryId: 1 });
    await client.createPet({ name: 'Rex', categoryId: 1 });
    await client.createPet({ name: 'Rex', categoryId: 1 }, { idempotencyKey: 'order-42' });
    const [first, second, third] = api.seen.map((s) => s.headers['idempotency-key']);
    expect(first).not.toBe(second);
    expect(third).toBe('order-42');
  });

  it('when the answer is 429 with Retry-After: 1, then the retry waits at least that second', async () => {
    api = await ScriptedApi.start(errorAnswer(429, 'rate_limited', { 'Retry-After': '1', ...rateLimitHeaders(0, 1) }), json(200, [REX]));
    const page = await api.client().listPets();
    expect(page.pets).toEqual([REX]);
    expect(api.seen[1]!.at - api.seen[0]!.at).toBeGreaterThanOrEqual(1_000);
  });

  it.each([
    [400, 'invalid_parameter'],
    [401, 'unauthorized'],
    [403, 'forbidden'],
    [404, 'not_found'],
    [409, 'idempotency_key_in_use'],
    [422, 'idempotency_key_reused'],
  ])('when the answer is %i, then it is not retried and rejects with an AnimalStoreError carrying the answer', async (status, code) => {
    api = await ScriptedApi.start(errorAnswer(status, code, { 'Retry-After': '1' }));
    const error = await rejection(api.client().createPet({ name: 'Rex', categoryId: 1 }));
    expect(error).toBeInstanceOf(AnimalStoreError);
    expect(error).toMatchObject({ name: 'AnimalStoreError', status, code, message: `the ${code} message`, requestId: `req-${status}`, retryAfter: 1 });
    expect(api.seen).toHaveLength(1);
  });

  it('when every answer is 503, then it tries 1 + maxRetries times and rejects with the last answer', async () => {
    api = await ScriptedApi.start(errorAnswer(503, 'service_unavailable'));
    const error = await rejection(api.client({ maxRetries: 2 }).listPets());
    expect(error).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(api.seen).toHaveLength(3);
  });

  it('when the answer is not in the Error shape, then it is unexpected_response, and a 502 of that kind is still retried', async () => {
    api = await ScriptedApi.start((_req, res) => res.writeHead(502, { 'Content-Type': 'text/html' }).end('<h1>Bad Gateway</h1>'));
    const error = await rejection(api.client({ maxRetries: 1 }).listPets());
    expect(error).toMatchObject({ status: 502, code: 'unexpected_response', requestId: undefined });
    expect(api.seen).toHaveLength(2);
  });

  it('when the retries would run past timeoutMs, then the call ends within it, with the last answer', async () => {
    // Tries at 0 s and 3 s; a third would start at 6 s, past the 5 s: the second answer is the last,
    // with two seconds to spare for the two requests on a loaded machine.
    api = await ScriptedApi.start(errorAnswer(503, 'service_unavailable', { 'Retry-After': '3' }));
    const started = Date.now();
    const error = await rejection(api.client({ maxRetries: 10, timeoutMs: 5_000 }).listPets());
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error).toMatchObject({ status: 503 });
    expect(api.seen.length).toBeGreaterThanOrEqual(2);
  });

  it('when Retry-After is longer than the time left, then it rejects at once with retryAfter instead of waiting', async () => {
    api = await ScriptedApi.start(errorAnswer(429, 'rate_limited', { 'Retry-After': '60', ...rateLimitHeaders(0, 60) }));
    const started = Date.now();
    const error = await rejection(api.client().listPets());
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 60, requestId: 'req-429' });
    // Not the 60 s it was told to wait, nor any part of them worth counting.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(api.seen).toHaveLength(1);
  });

  it('when the server never answers, then the call rejects with a TimeoutError once timeoutMs has passed', async () => {
    api = await ScriptedApi.start(() => undefined);
    const started = Date.now();
    const error = await rejection(api.client({ timeoutMs: 500 }).listPets());
    expect((error as Error).name).toBe('TimeoutError');
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    // Ended by the timeout, not by anything the server did (it never answers): any bound far below forever.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('when the caller aborts during a wait between retries, then the call rejects with the abort reason at once, and sends nothing more', async () => {
    const scripted = await ScriptedApi.start(errorAnswer(429, 'rate_limited', { 'Retry-After': '4', ...rateLimitHeaders(0, 4) }), json(200, []));
    api = scripted;
    const controller = new AbortController();
    const call = scripted.client({ timeoutMs: 30_000 }).listPets({ signal: controller.signal });
    await waitFor(() => scripted.seen.length === 1, 10_000, 'the first try');
    const abortedAt = Date.now();
    controller.abort();
    const error = await rejection(call);
    expect((error as Error).name).toBe('AbortError');
    // At once: not after the 4 s wait (half of it is far more than a loaded machine needs to reject).
    expect(Date.now() - abortedAt).toBeLessThan(2_000);
    // Past the moment the retry would have been sent: nothing was.
    await new Promise((resolve) => setTimeout(resolve, 4_500 - (Date.now() - abortedAt)));
    expect(scripted.seen).toHaveLength(1);
  });

  it('when the signal is already aborted, then nothing is sent', async () => {
    api = await ScriptedApi.start(json(200, []));
    const error = await rejection(api.client().createPet({ name: 'Rex', categoryId: 1 }, { signal: AbortSignal.abort() }));
    expect((error as Error).name).toBe('AbortError');
    expect(api.seen).toHaveLength(0);
  });

  it('when the last answer left no request in the window, then the next call waits for the window instead of being refused', async () => {
    api = await ScriptedApi.start(json(200, [], rateLimitHeaders(0, 1)), json(200, []));
    const client = api.client();
    await client.listPets();
    await client.listPets();
    expect(api.seen[1]!.at - api.seen[0]!.at).toBeGreaterThanOrEqual(900);
  });

  it('when the window frees later than the call may wait, then it is refused locally (429 rate_limited, no requestId) without a request', async () => {
    api = await ScriptedApi.start(json(200, [], rateLimitHeaders(0, 30)));
    const client = api.client({ timeoutMs: 1_000 });
    await client.listPets();
    const error = await rejection(client.listPets());
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', requestId: undefined, retryAfter: expect.any(Number) });
    expect((error as AnimalStoreError).retryAfter).toBeGreaterThanOrEqual(29);
    expect(api.seen).toHaveLength(1);
  });

  it('when calls run concurrently with 2 requests left, then only 2 are sent before the window resets', async () => {
    api = await ScriptedApi.start(json(200, [], rateLimitHeaders(2, 2)), (_req, res, _seen, index) => json(200, [], rateLimitHeaders(Math.max(0, 2 - index), 2))(_req, res, _seen, index));
    const client = api.client();
    await client.listPets();
    const started = Date.now();
    await Promise.all(Array.from({ length: 4 }, () => client.listPets()));
    const sentEarly = api.seen.slice(1).filter((s) => s.at - started < 1_500);
    expect(sentEarly).toHaveLength(2);
    expect(api.seen).toHaveLength(5);
  });

  it('when getPet is called twice, then one deprecation warning is emitted in all', async () => {
    api = await ScriptedApi.start(json(200, REX));
    // Observed, not replaced: the warning still goes out the usual way.
    const emitWarning = jest.spyOn(process, 'emitWarning');
    try {
      expect(await api.client().getPet(7)).toEqual(REX);
      await api.client().getPet(7);
      const deprecations = emitWarning.mock.calls.filter(([, options]) => (options as { type?: string } | undefined)?.type === 'DeprecationWarning');
      expect(deprecations).toEqual([[expect.stringContaining('getPet() is deprecated'), { type: 'DeprecationWarning', code: 'ANIMAL_STORE_GET_PET' }]]);
    } finally {
      emitWarning.mockRestore();
    }
    expect(api.seen.map((s) => s.url)).toEqual(['/v1/pets/7', '/v1/pets/7']);
  });

  it('when baseUrl does not end in /v1, then the constructor refuses it', () => {
    expect(() => new AnimalStoreClient({ baseUrl: 'https://api.animalstore.example', apiKey: 'k' })).toThrow(/must end in \/v1/);
    expect(() => new AnimalStoreClient({ baseUrl: 'https://api.animalstore.example/v1/', apiKey: 'k' })).not.toThrow();
  });
});
