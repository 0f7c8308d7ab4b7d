/**
 * Runs `flush` every `intervalMs` in the background, one run at a time, and once more on `close()`.
 * What the request path records in memory reaches the store this way, never on the request itself.
 */
export class BackgroundFlush {
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly flush: () => Promise<void>,
    intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {
    this.timer = setInterval(() => void this.run().catch(() => undefined), intervalMs);
    // A pending flush must not keep a stopping process alive: close() does the last one.
    this.timer.unref();
  }

  /** Flushes now (or joins the flush under way); rejects when it fails, after reporting it. */
  run(): Promise<void> {
    if (!this.running) {
      this.running = this.flush()
        .catch((error: unknown) => {
          this.onError(error);
          throw error;
        })
        .finally(() => {
          this.running = undefined;
        });
    }
    return this.running;
  }

  /** Stops the timer and makes a last attempt; a failure then is reported, not thrown. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
    await this.run().catch(() => undefined);
  }
}
