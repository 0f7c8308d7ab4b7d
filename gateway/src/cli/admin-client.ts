import { nextLinkTarget } from '../../../shared/src/link-header';
import { EXIT_FAILED, EXIT_OK, UsageError, type CliIo, type Env } from './io';
import { renderTable, type Column } from './table';

/** Where the admin API is and the token it is called with: the options, else the environment. */
export interface AdminConnectionOptions {
  url?: string;
  token?: string;
}

type Reply = { ok: true; status: number; payload: unknown; link: string | null } | { ok: false; exitCode: number };

/**
 * The admin API over HTTP, as the CLI calls it: every answer is printed (JSON, or a table for
 * lists), every refusal or unreachable API reported on stderr as `error: <code>: <message>` with
 * exit status 1. The rules live in the gateway; the client checks nothing the API checks.
 */
export class AdminClient {
  private constructor(
    private readonly base: string,
    private readonly token: string,
    private readonly io: CliIo,
  ) {}

  static connect(options: AdminConnectionOptions, env: Env, io: CliIo): AdminClient {
    const token = options.token ?? env.ADMIN_TOKEN;
    if (!token) throw new UsageError('no admin token: set ADMIN_TOKEN (or pass --token)');
    return new AdminClient(adminUrl(options.url ?? env.ADMIN_URL ?? `http://127.0.0.1:${env.ADMIN_PORT || '8081'}`), token, io);
  }

  /** Calls the API and prints its JSON answer (or `printOnNoContent` for a 204). */
  async print(method: string, path: string, body?: unknown, printOnNoContent?: unknown): Promise<number> {
    const reply = await this.call(method, path, body);
    if (!reply.ok) return reply.exitCode;
    const result = reply.status === 204 ? printOnNoContent : reply.payload;
    if (result !== undefined) this.io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    return EXIT_OK;
  }

  /**
   * A listing: a table for a person, or with `json` the API's array as it is. When the API has a
   * next page, the way to it is printed under the table (with `json`: on stderr, so stdout stays JSON).
   */
  async list(path: string, columns: Column[], empty: string, json: boolean): Promise<number> {
    const reply = await this.call('GET', path);
    if (!reply.ok) return reply.exitCode;
    const rows = Array.isArray(reply.payload) ? (reply.payload as Record<string, unknown>[]) : [];
    const cursor = nextCursor(reply.link);
    const more = cursor === undefined ? undefined : `More: add --cursor ${cursor} to see the next page.\n`;
    if (json) {
      this.io.stdout(`${JSON.stringify(rows, null, 2)}\n`);
      if (more) this.io.stderr(more);
    } else {
      this.io.stdout(rows.length === 0 ? `${empty}\n` : renderTable(columns, rows));
      if (more) this.io.stdout(more);
    }
    return EXIT_OK;
  }

  private async call(method: string, path: string, body?: unknown): Promise<Reply> {
    let response: Response;
    try {
      response = await fetch(`${this.base}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      this.io.stderr(`error: cannot reach the admin API at ${this.base}: ${cause?.code ?? cause?.message ?? (error as Error).message}\n`);
      return { ok: false, exitCode: EXIT_FAILED };
    }
    const text = await response.text();
    let payload: unknown = undefined;
    try {
      payload = text === '' ? undefined : JSON.parse(text);
    } catch {
      // reported below if it matters
    }
    if (!response.ok) {
      const { code, message } = (payload ?? {}) as { code?: unknown; message?: unknown };
      this.io.stderr(
        typeof code === 'string' && typeof message === 'string'
          ? `error: ${code}: ${message}\n`
          : `error: http_${response.status}: the admin API answered ${response.status} ${response.statusText}\n`,
      );
      return { ok: false, exitCode: EXIT_FAILED };
    }
    return { ok: true, status: response.status, payload, link: response.headers.get('link') };
  }
}

function adminUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
    return url.href.replace(/\/+$/, '');
  } catch {
    throw new UsageError(`the admin URL must start with http:// or https://, got "${raw}"`);
  }
}

function nextCursor(link: string | null): string | undefined {
  const target = nextLinkTarget(link);
  return target === undefined ? undefined : (new URL(target, 'http://relative.invalid').searchParams.get('cursor') ?? undefined);
}

/** A query string of the options given (absent ones left out); the API validates the values. */
export function query(params: Record<string, string | boolean | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (typeof value === 'string') search.set(name, value);
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/** A path segment from a command-line argument. */
export function segment(value: string): string {
  return encodeURIComponent(value);
}
