import type { Express } from 'express';
import request from 'supertest';

let visitors = 0;

/** A fresh client address for each visitor, so per-IP limits of one test never touch another's. */
function newAddress(): string {
  visitors += 1;
  return `10.0.${Math.floor(visitors / 250)}.${(visitors % 250) + 1}`;
}

/**
 * One browser as the portal's routes see it (supertest, in process, or a running gateway's URL): it
 * keeps the cookies it is given, sends them back, and posts forms with the portal's own Origin
 * unless told otherwise. Its address travels in X-Forwarded-For, so the gateway under test must
 * trust loopback for per-visitor addresses (a gateway that trusts nobody counts them all as one).
 */
export class PortalVisitor {
  readonly cookies = new Map<string, string>();
  readonly ip: string;

  constructor(
    private readonly app: Express | string,
    readonly host = 'portal.test',
    ip?: string,
  ) {
    this.ip = ip ?? newAddress();
  }

  get origin(): string {
    return `http://${this.host}`;
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<request.Response> {
    const response = await this.with(request(this.app).get(path), headers);
    this.remember(response);
    return response;
  }

  /** A form post; `headers` replace the defaults (Origin of the portal), e.g. `{ Origin: 'https://evil.example' }` or `{}`. */
  async post(path: string, form: Record<string, string | string[]>, headers: Record<string, string> = { Origin: this.origin }): Promise<request.Response> {
    const response = await this.with(request(this.app).post(path).type('form'), headers).send(form);
    this.remember(response);
    return response;
  }

  /** The CSRF token in the forms of the page at `path`. */
  async tokenFrom(path: string): Promise<string> {
    return csrfTokenIn((await this.get(path)).text);
  }

  async signUp(email: string, password = 'a long enough password'): Promise<request.Response> {
    return this.post('/portal/signup', { _csrf: await this.tokenFrom('/portal/signup'), email, password });
  }

  async logIn(email: string, password = 'a long enough password'): Promise<request.Response> {
    return this.post('/portal/login', { _csrf: await this.tokenFrom('/portal/login'), email, password });
  }

  /** Creates a key from the dashboard, with the form's other fields (name, access, expiresAt) if given; returns the page and the key read from it. */
  async createKey(fields: Record<string, string> = {}): Promise<{ response: request.Response; key: string; keyId: string }> {
    const response = await this.post('/portal/keys', { _csrf: await this.tokenFrom('/portal'), ...fields });
    const key = /<code id="new-key" class="secret">([^<]+)<\/code>/.exec(response.text)?.[1] ?? '';
    const keyId = /data-key-id="(key_[0-9A-Za-z]{20})"/.exec(response.text)?.[1] ?? '';
    return { response, key, keyId };
  }

  private with(test: request.Test, headers: Record<string, string>): request.Test {
    test.set('Host', this.host).set('X-Forwarded-For', this.ip);
    if (this.cookies.size > 0) test.set('Cookie', [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    for (const [name, value] of Object.entries(headers)) test.set(name, value);
    return test;
  }

  private remember(response: request.Response): void {
    const lines = response.headers['set-cookie'] as unknown as string[] | undefined;
    for (const line of lines ?? []) {
      const [pair = ''] = line.split(';');
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator);
      if (/expires=Thu, 01 Jan 1970/i.test(line) || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(separator + 1));
    }
  }
}

export function csrfTokenIn(page: string): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
  if (!token) throw new Error(`no CSRF token on the page:\n${page.slice(0, 500)}`);
  return token;
}

/** The Set-Cookie line of one cookie, for checking its attributes. */
export function setCookieLine(response: request.Response, name: string): string | undefined {
  const lines = response.headers['set-cookie'] as unknown as string[] | undefined;
  return lines?.find((line) => line.startsWith(`${name}=`));
}
