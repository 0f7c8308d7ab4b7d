/**
 * The pets-service's PostgreSQL advisory locks, in the two-key form: the first key is 0x70657473
 * ("pets" in ASCII), the service's own space, so that other applications sharing the server
 * are unlikely to take the same lock by accident; the second names the lock.
 */
const PETS_LOCK_SPACE = 0x70657473;

export const ADVISORY_LOCKS = {
  /** Held while a replica migrates the schema. */
  migrations: [PETS_LOCK_SPACE, 1],
  /** Held by each create from drawing its id to its commit, so ids become visible in id order. */
  idOrder: [PETS_LOCK_SPACE, 2],
} as const satisfies Record<string, readonly [number, number]>;
