import type { OwnerNotice } from '../mail/messages';
import type { WebhookEndpoint } from './store';

export type { OwnerNotice };

/** What the owner is told when an endpoint was disabled for failing every delivery for 5 days. Never the secret. */
export function disabledNotice(endpoint: WebhookEndpoint): OwnerNotice {
  return {
    subject: 'Your webhook endpoint was disabled',
    text: [
      `Every delivery to your webhook endpoint ${endpoint.url} (${endpoint.id}) has failed for 5 days, so it was disabled at ${endpoint.disabledAt ?? 'this moment'} and receives no more events.`,
      'The developer portal\'s Webhooks page shows its recent deliveries and what the endpoint answered. Once it works again, add it anew (you will get a new signing secret) and delete the disabled one.',
    ].join('\n\n'),
  };
}
