import { SMTPServer } from 'smtp-server';
import { freePort, waitFor } from './ports';

/** One email as the test mail server received it: the envelope, the headers and the plain-text body, decoded. */
export interface ReceivedEmail {
  to: string[];
  subject: string;
  headers: Record<string, string>;
  text: string;
}

/**
 * A real SMTP server (the npm package `smtp-server`) on a free port, keeping what it receives.
 * Plain SMTP without STARTTLS and without authentication (`SMTP_URL=smtp://127.0.0.1:PORT`); it can
 * be stopped and started again on the same port (a mail server down, then back).
 */
export class TestSmtpServer {
  readonly received: ReceivedEmail[] = [];
  private server: SMTPServer | undefined;

  private constructor(readonly port: number) {}

  static async start(): Promise<TestSmtpServer> {
    const smtp = new TestSmtpServer(await freePort());
    await smtp.listen();
    return smtp;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async listen(): Promise<void> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      // stop() ends the connections still open after this (a client that never says QUIT) instead of waiting 30 s.
      closeTimeout: 500,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          this.received.push(parseEmail(Buffer.concat(chunks).toString('utf8'), session.envelope.rcptTo.map((rcpt) => rcpt.address)));
          callback();
        });
      },
    });
    server.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      server.listen(this.port, '127.0.0.1', resolve);
      server.once('error', reject);
    });
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Waits for the emails to `to` to number `count` (generous deadline), and gives them. */
  async emailsTo(to: string, count = 1, timeoutMs = 15_000): Promise<ReceivedEmail[]> {
    await waitFor(() => this.received.filter((email) => email.to.includes(to)).length >= count, timeoutMs, `${count} email(s) to ${to}`);
    return this.received.filter((email) => email.to.includes(to));
  }
}

/** The first `http…` link of an email's text that starts with `prefix` (e.g. `http://localhost:8080/portal/verify`). */
export function linkIn(email: ReceivedEmail, path: string): string {
  const link = email.text.match(/https?:\/\/\S+/g)?.find((candidate) => new URL(candidate).pathname === path);
  if (!link) throw new Error(`no link to ${path} in the email "${email.subject}"`);
  return link;
}

function parseEmail(raw: string, to: string[]): ReceivedEmail {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.slice(split + 4);
  if (/quoted-printable/i.test(headers['content-transfer-encoding'] ?? '')) {
    body = Buffer.from(body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8');
  }
  return { to, subject: headers.subject ?? '', headers, text: body.replace(/\r\n/g, '\n') };
}
