import type { FromSchema } from 'json-schema-to-ts';
import { createValidator } from '../../../shared/src/validation';
import { WEBHOOK_EVENT_TYPES } from './event-types';

/** POST /admin/accounts/{id}/webhooks (and the portal's form): the URL's own rules are `address-policy.ts`'s. */
const newEndpointSchema = {
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  properties: {
    url: { type: 'string', minLength: 1, maxLength: 2_048 },
    events: { type: 'array', minItems: 1, maxItems: WEBHOOK_EVENT_TYPES.length, uniqueItems: true, items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] } },
  },
} as const;

export type NewEndpointInput = FromSchema<typeof newEndpointSchema>;
export const validateNewEndpoint = createValidator<NewEndpointInput>(newEndpointSchema, 'invalid_body', 'body');
