import { sleep } from './ports';

/**
 * Waits until `changed()` holds, and fails if a poll sent `withinMs` or more after `since` still
 * reads the old state: a change (a revoked or rolled key) must reach a replica within that time.
 *
 * The promise is judged by when each poll was sent, not by when the loop saw the change: the
 * loop's own requests and pauses count in that, and on a loaded machine (CI beside other suites)
 * one request alone can take a second, which says nothing about the replica. A replica that
 * applies the change late is still caught: its polls sent past the deadline read the old state.
 * `intervalMs` is the pause between polls (a poll that is itself counted, such as a rate-limited
 * request, may want fewer).
 */
export async function expectChangedWithin(since: number, withinMs: number, changed: () => Promise<boolean>, what: string, { intervalMs = 20 }: { intervalMs?: number } = {}): Promise<void> {
  for (;;) {
    const sentAt = Date.now();
    if (await changed()) return;
    if (sentAt - since >= withinMs) throw new Error(`${what}: not so for a request sent ${sentAt - since} ms after the change (allowed: ${withinMs} ms)`);
    await sleep(intervalMs);
  }
}
