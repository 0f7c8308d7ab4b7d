/**
 * What an `Idempotency-Key` costs a create (issue 18): the same POST /v1/pets with a new key per
 * request, beside the plain create, on the pets-service alone (the check's own cost: a look-up and a
 * record written in the pet's transaction) and behind the gateway (what a client sees). The report
 * gives the difference in CPU per request and in p99. Every request carries a key never used
 * before, so each is a real create with its check, not a replay.
 */
import type { LoadOrder } from './load-protocol';
import type { TargetName } from './system';

export type IdempotencyKind = 'create-keyed';

export const IDEMPOTENCY_LABELS: Record<IdempotencyKind, string> = { 'create-keyed': 'POST /v1/pets + Idempotency-Key' };
export const IDEMPOTENCY_EXPECTED: Record<IdempotencyKind, number> = { 'create-keyed': 201 };
/** The pets-service alone, and the whole path through the gateway. */
export const IDEMPOTENCY_TARGETS: readonly TargetName[] = ['direct', 'gateway-redis'];

export function isIdempotencyKind(kind: string): kind is IdempotencyKind {
  return kind in IDEMPOTENCY_LABELS;
}

/** The plain create's order, each request with a fresh `Idempotency-Key` (a UUID, as clients send). */
export function keyedOrder(createOrder: LoadOrder): LoadOrder {
  return { ...createOrder, uniqueHeader: 'idempotency-key' };
}
