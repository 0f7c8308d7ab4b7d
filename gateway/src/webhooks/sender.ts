import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { checkedLookup, hostOf, isPublicAddress, RefusedAddressError, type Resolve } from './address-policy';

/** How long a receiver has to answer a delivery, the whole exchange included. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** What is read of a receiver's answer (then the connection is closed): only its status matters. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/** What one attempt came to: the receiver's status, or why there was none. */
export type AttemptResult = { status: number } | { error: string };

export interface SendOptions {
  allowPrivate: boolean;
  timeoutMs?: number;
  /** Tests resolve names their own way; the default is the operating system's resolver. */
  resolve?: Resolve;
}

/**
 * POSTs one signed delivery over node:http(s). No redirect is followed (node's client never
 * does; a 3xx is just a status that is not 2xx), no connection is reused (each attempt resolves
 * and checks its address again), and without `allowPrivate` the connection goes only to an address
 * the SSRF rules let through.
 */
export function sendDelivery(rawUrl: string, body: string, headers: Record<string, string>, options: SendOptions): Promise<AttemptResult> {
  const url = new URL(rawUrl);
  const host = hostOf(url);
  if (!options.allowPrivate && isIP(host) !== 0 && !isPublicAddress(host)) return Promise.resolve({ error: new RefusedAddressError(host, host).message });
  const client = url.protocol === 'https:' ? https : http;
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(result);
    };
    const request = client.request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'AnimalStore-Webhooks/1', ...headers },
        ...(options.allowPrivate ? {} : { lookup: checkedLookup(options.resolve) }),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) finish({ status });
        });
        response.on('end', () => finish({ status }));
        response.on('error', () => finish({ status }));
      },
    );
    const timer = setTimeout(() => finish({ error: `no answer within ${timeoutMs} ms` }), timeoutMs);
    request.on('error', (error) => finish({ error: error instanceof RefusedAddressError ? error.message : `could not connect: ${error.message}` }));
    request.end(body);
  });
}

export function isDelivered(result: AttemptResult): boolean {
  return 'status' in result && result.status >= 200 && result.status < 300;
}
