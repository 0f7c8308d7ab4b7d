/**
 * Once-only claims across replicas: the first caller of a name within its time wins (SET NX PX on
 * Redis, a map in process). The webhook store keeps them (`WebhookStore.claimOnce`); the ban and
 * expiry detectors below use them so that each event is published by one replica.
 */
export interface Claims {
  claimOnce(name: string, ttlMs: number): Promise<boolean>;
}
