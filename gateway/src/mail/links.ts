/**
 * Absolute links for emails, on the origin of `PUBLIC_BASE_URL` (without it, `http://localhost:PORT`):
 * an email is read far from the request that caused it, so a relative link would lead nowhere.
 */
export class MailLinks {
  readonly origin: string;

  constructor(publicBaseUrl: string | undefined, port: number) {
    this.origin = publicBaseUrl === undefined ? `http://localhost:${port}` : new URL(publicBaseUrl).origin;
  }

  /** `path` (from `/`) with `query` encoded. */
  to(path: string, query: Record<string, string> = {}): string {
    const url = new URL(path, this.origin);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    return url.toString();
  }
}
