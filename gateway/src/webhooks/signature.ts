import { createHmac } from 'node:crypto';
import { secretKey } from './secret';

/**
 * The Standard Webhooks headers of one attempt: the event's id (the same on every attempt, so a
 * receiver can drop a repeat), the attempt's time in Unix seconds, and `v1,` + the base64
 * HMAC-SHA256 of `{id}.{timestamp}.{body}` keyed with the secret's bytes.
 */
export function signatureHeaders(eventId: string, body: string, secret: string, nowMs: number): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1000));
  const signature = createHmac('sha256', secretKey(secret)).update(`${eventId}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': eventId, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}
