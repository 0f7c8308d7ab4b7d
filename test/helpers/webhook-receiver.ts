import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One POST a receiver got: its Standard Webhooks headers and the body, parsed. */
export interface ReceivedDelivery {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
}

/**
 * A real webhook receiver on a free port of 127.0.0.1: it records every POST and answers with
 * `answer(n)` (n counts the requests from 1; default 204). `verifyAll(secret)` checks every
 * delivery's signature with the `standardwebhooks` package, a receiver's own library, not ours.
 */
export class WebhookReceiver {
  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    readonly received: ReceivedDelivery[],
  ) {}

  static async start(answer: (n: number) => number = () => 204, port = 0): Promise<WebhookReceiver> {
    let count = 0;
    const received: ReceivedDelivery[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        const header = (name: string) => String(req.headers[name] ?? '');
        received.push({ id: header('webhook-id'), timestamp: header('webhook-timestamp'), signature: header('webhook-signature'), body, payload: JSON.parse(body) as ReceivedDelivery['payload'] });
        res.writeHead(answer(++count)).end();
      });
    });
    server.keepAliveTimeout = 1;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    return new WebhookReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received);
  }

  get port(): number {
    return Number(new URL(this.url).port);
  }

  /** Every delivery (from the `from`-th on) verified with `standardwebhooks` (throws on the first that is not), their payloads. */
  verifyAll(secret: string, from = 0): ReceivedDelivery['payload'][] {
    const verifier = new Webhook(secret);
    return this.received.slice(from).map((delivery) =>
      verifier.verify(delivery.body, { 'webhook-id': delivery.id, 'webhook-timestamp': delivery.timestamp, 'webhook-signature': delivery.signature }) as ReceivedDelivery['payload'],
    );
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
