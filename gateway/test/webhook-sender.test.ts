import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendDelivery } from '../src/webhooks/sender';

/** A real receiver on a free port that answers what `answer` says and records what it saw. */
function startReceiver(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const seen: { headers: http.IncomingHttpHeaders; body: string; url: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ headers: req.headers, body, url: req.url ?? '' });
      answer(req, res);
    });
  });
  return new Promise<{ url: string; seen: typeof seen; close: () => Promise<void> }>((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        seen,
        close: () => new Promise<void>((done) => server.close(() => done())).then(() => undefined, () => undefined),
      });
    });
    server.on('connection', (socket) => socket.unref());
  });
}

describe('sendDelivery', () => {
  it('when the receiver answers 204, then its status is returned and it saw the JSON body and the headers', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(204).end());
    try {
      const result = await sendDelivery(`${receiver.url}/in`, '{"type":"webhook.test"}', { 'webhook-id': 'evt_1' }, { allowPrivate: true });
      expect(result).toEqual({ status: 204 });
      expect(receiver.seen).toEqual([expect.objectContaining({ url: '/in', body: '{"type":"webhook.test"}' })]);
      expect(receiver.seen[0]!.headers).toMatchObject({ 'content-type': 'application/json', 'webhook-id': 'evt_1' });
    } finally {
      await receiver.close();
    }
  });

  it('when the receiver redirects, then the redirect is not followed', async () => {
    const receiver = await startReceiver((req, res) => res.writeHead(req.url === '/in' ? 302 : 200, { Location: '/elsewhere' }).end());
    try {
      expect(await sendDelivery(`${receiver.url}/in`, '{}', {}, { allowPrivate: true })).toEqual({ status: 302 });
      expect(receiver.seen.map((request) => request.url)).toEqual(['/in']);
    } finally {
      await receiver.close();
    }
  });

  it('when the receiver does not answer in time, then the attempt ends with an error', async () => {
    const receiver = await startReceiver(() => undefined);
    try {
      const result = await sendDelivery(`${receiver.url}/in`, '{}', {}, { allowPrivate: true, timeoutMs: 200 });
      expect(result).toEqual({ error: 'no answer within 200 ms' });
    } finally {
      await receiver.close();
    }
  });

  it('when a name resolves to a loopback address at delivery time, then nothing is sent to it', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(200).end());
    try {
      const port = new URL(receiver.url).port;
      const result = await sendDelivery(`http://hooks.example.com:${port}/in`, '{}', {}, { allowPrivate: false, resolve: async () => ['127.0.0.1'] });
      expect(result).toEqual({ error: 'hooks.example.com resolves to a non-public address (127.0.0.1): not delivered' });
      const literal = await sendDelivery(`http://[::ffff:127.0.0.1]:${port}/in`, '{}', {}, { allowPrivate: false });
      expect(literal).toEqual({ error: '::ffff:7f00:1 resolves to a non-public address (::ffff:7f00:1): not delivered' });
      expect(receiver.seen).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});
