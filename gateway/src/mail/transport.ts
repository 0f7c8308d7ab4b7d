import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import { maskUrlCredentials } from '../../../shared/src/redact';
import type { Email } from './email';

/** Where an email goes once its turn in the queue comes: a mail server, or the log. */
export interface MailTransport {
  /** Throws when the email was not accepted (the queue tries again later). */
  send(email: Email): Promise<void>;
  /** For people: `smtp://mail.example.com:587` (never a password) or `the log`. */
  readonly description: string;
  close(): void;
}

/** A mail server that does not answer within these is given up on for this attempt (the queue retries). */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 } as const;

/** nodemailer over SMTP (`SMTP_URL`: smtp:// with STARTTLS when offered, or smtps://). */
export function smtpTransport(smtpUrl: string, from: string): MailTransport {
  const transporter = nodemailer.createTransport({ url: smtpUrl, ...SMTP_TIMEOUTS });
  return {
    description: maskUrlCredentials(smtpUrl),
    async send({ to, subject, text, headers }) {
      await transporter.sendMail({ from, to, subject, text, headers });
    },
    close: () => transporter.close(),
  };
}

/**
 * Without `SMTP_URL`: each email is written whole to the log at `info`, so a developer on the
 * embedded default follows its links from there. Only links and account facts are ever in an
 * email (never a password or a key), so the log holds nothing it must not.
 */
export function logTransport(logger: Logger, from: string): MailTransport {
  return {
    description: 'the log',
    async send({ to, subject, text, headers }) {
      logger.info({ email: { from, to, subject, headers, text } }, `email to ${to} (not sent: SMTP_URL is not set): ${subject}`);
    },
    close: () => undefined,
  };
}
