/** Something the person can fix or wait out, with the page status and the message shown to them. */
export class PortalRefusal extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 429 | 503,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'PortalRefusal';
  }
}

/** The value of a check that passed; a failed check's message, as a 400 refusal. */
export function valid<T>(checked: { ok: true; value: T } | { ok: false; message: string }): T {
  if (!checked.ok) throw new PortalRefusal(400, checked.message);
  return checked.value;
}

export function describeWait(seconds: number): string {
  if (seconds < 60) return `${seconds} ${seconds === 1 ? 'second' : 'seconds'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
}
