import type { Logger } from 'pino';
import type { JobQueue, JobQueues } from '../jobs';
import type { Email } from './email';
import type { MailTransport } from './transport';

/**
 * How long a mail server may be down before an email is given up: the delays between attempts,
 * about 75 minutes in all (the contract asks for at least an hour).
 */
export const MAIL_RETRY_DELAYS_MS: readonly number[] = Object.freeze([10_000, 30_000, 60_000, 2 * 60_000, 5 * 60_000, 10 * 60_000, 15 * 60_000, 20 * 60_000, 20 * 60_000]);

export interface MailerOptions {
  jobs: JobQueues;
  transport: MailTransport;
  logger: Logger;
  /** Tests shorten the schedule. */
  retryDelaysMs?: readonly number[];
}

/**
 * Sends emails through the `email` job queue: `send` returns at once (the request that caused the
 * email is never delayed or failed by it), the queue retries a mail server that is down, and with
 * Redis a pending email survives a restart and is sent by one replica.
 */
export class Mailer {
  private readonly queue: JobQueue<Email>;

  constructor(private readonly options: MailerOptions) {
    const delays = options.retryDelaysMs ?? MAIL_RETRY_DELAYS_MS;
    this.queue = options.jobs.queue<Email>('email', {
      retryDelaysMs: delays,
      handle: async (email, attempt) => {
        try {
          await options.transport.send(email);
        } catch (err) {
          const log = { err: describeFailure(err), subject: email.subject, attempt: attempt.number };
          if (attempt.final) options.logger.error(log, 'email given up: the mail server did not take it');
          else options.logger.warn(log, 'email not sent yet: the mail server did not take it; trying again later');
          throw err;
        }
      },
    });
  }

  /**
   * Queues the email; never throws. `jobId` makes it once: the same id queued again (by another
   * replica, or twice) adds nothing.
   */
  send(email: Email, jobId?: string): void {
    this.queue.add(email, jobId === undefined ? {} : { jobId }).catch((err: unknown) => this.options.logger.error({ err, subject: email.subject }, 'email not queued'));
  }

  stats() {
    return this.queue.stats();
  }
}

/** The mail server's words, without the message itself (which holds the recipient's links). */
function describeFailure(error: unknown): { message: string; code?: string } {
  if (!(error instanceof Error)) return { message: String(error) };
  const code = (error as { code?: unknown }).code;
  return { message: error.message, ...(typeof code === 'string' ? { code } : {}) };
}
