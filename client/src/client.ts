import createClient, { type Client } from 'openapi-fetch';
import { RETRIED_STATUSES, retryDelayMs } from './backoff';
import { AnimalStoreError, retryAfterSeconds } from './errors';
import { nextLinkTarget } from './link-header';
import type { paths } from './generated/openapi';
import { RateLimitPacer, rateLimitOf, type RateLimit } from './rate-limit';
import type { NewPet, Pet, PetStatus } from './types';

export interface AnimalStoreClientOptions {
  /** The API's base address, ending in `/v1`, e.g. `https://api.animalstore.example/v1`. */
  baseUrl: string;
  /** An API key (`ask_live_…` or `ask_test_…`), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Retries of one call at most (429, 502, 503, 504, network errors). Default 4. */
  maxRetries?: number;
  /** One call, its retries and the waits between them included, never takes longer. Default 10,000. */
  timeoutMs?: number;
  /** The `fetch` to use (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
}

export interface CallOptions {
  /** Aborts the call, its retries and its waits: the call rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface ListPetsOptions extends CallOptions {
  /** 1–100, default 20. */
  limit?: number;
  status?: PetStatus;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

export interface PetsPage {
  pets: Pet[];
  /** Where the next page starts; undefined on the last page. */
  nextCursor: string | undefined;
}

export interface PetsOptions extends CallOptions {
  status?: PetStatus;
  /** Pets per request, 1–100 (default 100: fewer requests against the rate limit). */
  pageSize?: number;
}

export interface CreatePetOptions extends CallOptions {
  /**
   * Sent as `Idempotency-Key` with the first attempt and every retry. Default: a new random UUID per
   * call. Give your own to make a create safe to repeat across calls (or across processes), e.g. an
   * order number: within 24 hours the API answers a repeat with the pet it created the first time.
   */
  idempotencyKey?: string;
}

const DEFAULTS = { maxRetries: 4, timeoutMs: 10_000 };
const ENDS_IN_VERSION = /\/v1\/?$/;

type Attempt<T> = (signal: AbortSignal) => Promise<{ data?: T; error?: unknown; response: Response }>;

let getPetWarned = false;

/**
 * The Animal Store API's client. Every call retries what is worth retrying (429 after `Retry-After`;
 * 502, 503, 504 and network errors after an exponential backoff with full jitter) at most
 * `maxRetries` times and within `timeoutMs` in all, never a 400, 401, 403, 404, 409 or 422; and
 * holds back what the rate limit would refuse (see `RateLimitPacer`), so a key is not banned for
 * insisting. Creates carry an `Idempotency-Key`, so a retry never creates a second pet.
 */
export class AnimalStoreClient {
  /** The rate-limit fields of the last answer (undefined before the first). */
  rateLimit: RateLimit | undefined;

  private readonly api: Client<paths>;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly pacer = new RateLimitPacer();

  constructor({ baseUrl, apiKey, maxRetries = DEFAULTS.maxRetries, timeoutMs = DEFAULTS.timeoutMs, fetch }: AnimalStoreClientOptions) {
    if (!ENDS_IN_VERSION.test(new URL(baseUrl).pathname)) throw new TypeError(`baseUrl must end in /v1, e.g. https://api.animalstore.example/v1; got ${baseUrl}`);
    if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new TypeError(`maxRetries must be a whole number from 0, got ${maxRetries}`);
    if (!(timeoutMs > 0)) throw new TypeError(`timeoutMs must be positive, got ${timeoutMs}`);
    this.maxRetries = maxRetries;
    this.timeoutMs = timeoutMs;
    this.api = createClient<paths>({
      baseUrl: baseUrl.replace(/\/$/, ''),
      headers: { Authorization: `Bearer ${apiKey}` },
      // Looked up at each call, not captured: a test (or a polyfill) may replace the global later.
      fetch: (request) => (fetch ?? globalThis.fetch)(request),
    });
  }

  /** One page of pets, sorted by id. */
  async listPets({ limit, status, cursor, signal }: ListPetsOptions = {}): Promise<PetsPage> {
    const { data, response } = await this.call((attempt) => this.api.GET('/pets', { params: { query: { limit, status, cursor } }, signal: attempt }), signal);
    return { pets: data, nextCursor: nextCursorOf(response.headers.get('link')) };
  }

  /** Every pet (of a status), page after page: `for await (const pet of client.pets()) …`. */
  async *pets({ status, pageSize = 100, signal }: PetsOptions = {}): AsyncGenerator<Pet, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.listPets({ limit: pageSize, status, cursor, signal });
      yield* page.pets;
      cursor = page.nextCursor;
    } while (cursor !== undefined);
  }

  /** Adds a pet; retried safely under one `Idempotency-Key`, so at most one pet is created per call. */
  async createPet(newPet: NewPet, { idempotencyKey = globalThis.crypto.randomUUID(), signal }: CreatePetOptions = {}): Promise<Pet> {
    const { data } = await this.call(
      (attempt) => this.api.POST('/pets', { params: { header: { 'Idempotency-Key': idempotencyKey } }, body: newPet, signal: attempt }),
      signal,
    );
    return data;
  }

  /**
   * One pet by its id.
   * @deprecated The API removes `GET /pets/{petId}` on 5 December 2030: use `listPets` or `pets()` with a `status` filter.
   */
  async getPet(id: number, { signal }: CallOptions = {}): Promise<Pet> {
    warnGetPetOnce();
    const { data } = await this.call((attempt) => this.api.GET('/pets/{petId}', { params: { path: { petId: id } }, signal: attempt }), signal);
    return data;
  }

  /** One call: attempts and the waits between them, within the deadline, under the caller's signal. */
  private async call<T>(attempt: Attempt<T>, callerSignal: AbortSignal | undefined): Promise<{ data: T; response: Response }> {
    const deadlineMs = Date.now() + this.timeoutMs;
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, timeout]) : timeout;
    for (let retry = 0; ; retry += 1) {
      await this.pacer.acquire(deadlineMs, signal);
      let outcome: Awaited<ReturnType<Attempt<T>>>;
      try {
        outcome = await attempt(signal);
      } catch (failure) {
        this.pacer.settled(undefined, undefined, undefined);
        // Aborted or timed out: the signal's reason (an AbortError or a TimeoutError), as fetch itself rejects.
        if (signal.aborted) throw signal.reason;
        // The request may or may not have reached the API: only idempotent requests are sent again, and every call here is.
        if (retry >= this.maxRetries) throw failure;
        await wait(retryDelayMs(502, undefined, retry), deadlineMs, signal, failure);
        continue;
      }
      const { response } = outcome;
      const retryAfter = retryAfterSeconds(response.headers);
      this.pacer.settled(response.headers, response.status, retryAfter);
      this.rateLimit = rateLimitOf(response.headers) ?? this.rateLimit;
      if (response.ok) return { data: outcome.data as T, response };
      const refusal = AnimalStoreError.fromResponse(response, outcome.error);
      if (!RETRIED_STATUSES.has(response.status) || retry >= this.maxRetries) throw refusal;
      await wait(retryDelayMs(response.status, retryAfter, retry), deadlineMs, signal, refusal);
    }
  }
}

/**
 * Waits `ms` before a retry; when that would end past the deadline, there is no point: rejects at
 * once with `instead` (the last refusal or failure, which says why).
 */
function wait(ms: number, deadlineMs: number, signal: AbortSignal, instead: unknown): Promise<void> {
  if (Date.now() + ms >= deadlineMs) return Promise.reject(instead);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', aborted);
      resolve();
    }, ms);
    const aborted = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', aborted, { once: true });
  });
}

/** The `cursor` of a `Link: <…?cursor=…>; rel="next"` header (absolute or relative), if any. */
function nextCursorOf(link: string | null): string | undefined {
  const target = nextLinkTarget(link);
  return target === undefined ? undefined : (new URL(target, 'http://relative.invalid').searchParams.get('cursor') ?? undefined);
}

function warnGetPetOnce(): void {
  if (getPetWarned) return;
  getPetWarned = true;
  const message = 'AnimalStoreClient.getPet() is deprecated: the API removes GET /v1/pets/{petId} on 5 December 2030. Use listPets() or pets() with a status filter.';
  const process = (globalThis as { process?: { emitWarning?: (warning: string, options: { type: string; code: string }) => void } }).process;
  if (process?.emitWarning) process.emitWarning(message, { type: 'DeprecationWarning', code: 'ANIMAL_STORE_GET_PET' });
  else console.warn(message);
}
