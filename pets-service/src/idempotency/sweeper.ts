import type { Logger } from '../../../shared/src/logger';
import type { PetRepository } from '../pets/pet-repository';

export interface SweeperOptions {
  readonly logger: Logger;
  /** Time between sweeps. Records live a day, so this only bounds the table's size. */
  readonly everyMs?: number;
  /** When the first sweep runs: soon, so that a process restarted often still sweeps, but not in its start-up. */
  readonly firstAfterMs?: number;
  /** Rows per delete: one short transaction each, with the event loop free between two. */
  readonly batchSize?: number;
}

export interface RecordSweeper {
  /** Removes every record older than 24 hours, batch after batch; how many went. */
  sweep(): Promise<number>;
  /** No more sweeps; resolves once a running one has finished its batch (the database may then close). */
  stop(): Promise<void>;
}

export const SWEEP_EVERY_MS = 10 * 60 * 1000;
export const SWEEP_BATCH_SIZE = 500;
export const FIRST_SWEEP_AFTER_MS = 60 * 1000;

/** Lets the event loop run (I/O callbacks, so waiting requests) before the next batch. */
const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Removes expired idempotency records without holding up requests: a batch is one short delete
 * (on SQLite a synchronous one, so it must stay small), and requests run between batches. A
 * lookup already ignores a record past its 24 hours, so nothing depends on when the sweep runs;
 * replicas sharing PostgreSQL sweep alike without waiting for each other (SKIP LOCKED).
 */
export function startRecordSweeper(repository: Pick<PetRepository, 'removeExpiredRecords'>, { logger, everyMs = SWEEP_EVERY_MS, firstAfterMs = FIRST_SWEEP_AFTER_MS, batchSize = SWEEP_BATCH_SIZE }: SweeperOptions): RecordSweeper {
  let stopped = false;
  let running: Promise<number> | undefined;

  const sweepAll = async (): Promise<number> => {
    let removed = 0;
    for (;;) {
      const batch = await repository.removeExpiredRecords(batchSize);
      removed += batch;
      if (batch < batchSize || stopped) return removed;
      await yieldToRequests();
    }
  };
  const sweep = (): Promise<number> => {
    running ??= sweepAll().finally(() => {
      running = undefined;
    });
    return running;
  };
  const scheduled = () => {
    if (stopped) return;
    sweep().then(
      (removed) => {
        if (removed > 0) logger.info({ removed }, 'expired idempotency records removed');
      },
      (error: unknown) => logger.warn({ err: error }, 'expired idempotency records could not be removed; trying again at the next sweep'),
    );
  };

  let timer = setTimeout(function next() {
    scheduled();
    timer = setTimeout(next, everyMs);
    timer.unref();
  }, firstAfterMs);
  timer.unref();
  return {
    sweep,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}
