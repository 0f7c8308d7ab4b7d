/**
 * The parts every operation's responses share: the rate-limit headers (on every answer, refusals
 * included) and the refusals any operation may give.
 */
export const rateLimitHeaderRefs = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
  RateLimit: { $ref: '#/components/headers/RateLimit' },
  'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
};

/** A refusal: the Error body, with the rate-limit headers and any `extra` ones. */
export const errorWithHeaders = (description: string, extra: Record<string, unknown> = {}) => ({
  description,
  headers: { ...rateLimitHeaderRefs, ...extra },
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/** The refusals of every operation: the key, the limits, and the gateway or the service failing. */
export const commonErrors = {
  '401': errorWithHeaders('API key missing, invalid, revoked, expired or of the other environment (code `unauthorized`); the message says which, and for a key rolled past its grace period names the id of its replacement.', {
    'WWW-Authenticate': { schema: { type: 'string' }, description: 'Always `Bearer`.' },
  }),
  '429': errorWithHeaders('Rate limit exceeded (`rate_limited`) or the key is temporarily banned (`temporarily_banned`).', {
    'Retry-After': { $ref: '#/components/headers/Retry-After' },
  }),
  '500': errorWithHeaders('The gateway failed (`internal_error`).'),
  '502': errorWithHeaders('The pets-service could not be reached (`bad_gateway`).'),
  '503': errorWithHeaders('The pets-service is busy (`service_unavailable`).'),
  '504': errorWithHeaders('The pets-service did not answer in time (`gateway_timeout`).'),
};
