/**
 * Every Redis key of the webhooks, in one place. An account's list of endpoints sits with the
 * account (`{gw}`); each endpoint's record and deliveries share a hash tag of their own
 * (`{gw:webhook:<id>}`), so each script below touches one slot and a Redis Cluster spreads
 * endpoints over its nodes.
 */
export function webhookRedisKeys(namespace = 'gw') {
  const endpointTag = (id: string) => `{${namespace}:webhook:${id}}`;
  return {
    /** sorted set: the account's endpoint ids by creation (ms). */
    accountEndpoints: (accountId: string) => `{${namespace}}:account:${accountId}:webhooks`,
    /** hash: the endpoint's fields (see `RedisWebhookStore`). */
    endpoint: (id: string) => `${endpointTag(id)}:endpoint`,
    /** hash: event id → the delivery record (JSON). */
    deliveries: (id: string) => `${endpointTag(id)}:deliveries`,
    /** sorted set: event ids by the time they were queued (ms), for the newest-first listing. */
    deliveryOrder: (id: string) => `${endpointTag(id)}:delivery-order`,
    /** string with an expiry: a periodic job's once-only claim. */
    claim: (name: string) => `{${namespace}}:webhooks:claim:${name}`,
  };
}
