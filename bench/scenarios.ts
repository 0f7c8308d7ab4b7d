import { IDEMPOTENCY_EXPECTED, IDEMPOTENCY_LABELS, IDEMPOTENCY_TARGETS, isIdempotencyKind, keyedOrder, type IdempotencyKind } from './idempotency';
import type { LoadOrder } from './load-protocol';
import { TARGET_LABELS, type BenchSystem, type Target, type TargetName } from './system';

/** What a scenario asks. */
export type RequestKind = 'list' | 'create' | 'refused' | 'anonymous' | IdempotencyKind;

export const REQUEST_LABELS: Record<RequestKind, string> = {
  list: 'GET /v1/pets?limit=20',
  create: 'POST /v1/pets',
  refused: 'GET list, over quota (429)',
  anonymous: 'GET list, no key (401)',
  ...IDEMPOTENCY_LABELS,
};

export interface Scenario {
  /** e.g. `gateway-redis/list`. */
  id: string;
  target: TargetName;
  request: RequestKind;
  /** Every answer must have this status; anything else is counted as unexpected. */
  expectedStatus: number;
}

const EXPECTED: Record<RequestKind, number> = { list: 200, create: 201, refused: 429, anonymous: 401, ...IDEMPOTENCY_EXPECTED };
/** Refusals exist only where there are keys and limits. */
const KINDS_OF: Record<TargetName, RequestKind[]> = {
  direct: ['list', 'create'],
  hop: ['list', 'create'],
  'express-hop': ['list', 'create'],
  // Beside express-hop/list and gateway-redis/list: what the limiter's round trip alone costs.
  'express-hop-redis': ['list'],
  // The same round trip on a bare socket: what ioredis's share of it is (express-hop-raw-redis.ts).
  'express-hop-raw-redis': ['list'],
  'gateway-redis': ['list', 'create', 'refused', 'anonymous'],
  'gateway-memory': ['list', 'create', 'refused', 'anonymous'],
  // Beside gateway-redis/list: what tracing at 10 % adds to a served request.
  'gateway-traced': ['list'],
  // Beside gateway-redis's: another build's gateway (`--baseline`), e.g. the last main's. The same
  // requests as gateway-redis's (not only list and refused, as until 2026-11-27): an A/A run of this
  // very build read the baseline's GET list × 1.39 dearer while it served fewer kinds of request.
  'gateway-baseline': ['list', 'create', 'refused', 'anonymous'],
};

export function scenario(target: TargetName, request: RequestKind): Scenario {
  return { id: `${target}/${request}`, target, request, expectedStatus: EXPECTED[request] };
}

/** The scenarios of a run, in the order each round runs them. */
export function scenariosFor(targets: TargetName[]): Scenario[] {
  const keyed = IDEMPOTENCY_TARGETS.filter((target) => targets.includes(target)).map((target) => scenario(target, 'create-keyed'));
  return [...targets.flatMap((target) => KINDS_OF[target].map((request) => scenario(target, request))), ...keyed];
}

export function describe(s: Scenario): string {
  return `${TARGET_LABELS[s.target]} · ${REQUEST_LABELS[s.request]}`;
}

const NEW_PET = JSON.stringify({ name: 'Bench', categoryId: 1 });

/** The load order for one run of `s`. */
export function orderFor(system: BenchSystem, s: Scenario, load: Pick<LoadOrder, 'connections' | 'seconds' | 'overallRate' | 'recordLatencies' | 'amount'>): LoadOrder {
  if (isIdempotencyKind(s.request)) return keyedOrder(orderFor(system, { ...s, request: 'create' }, load));
  const target = system.targets[s.target];
  if (!target) throw new Error(`target ${s.target} was not started`);
  const headers: Record<string, string> = {};
  const authorization = authorizationFor(system, target, s.request);
  if (authorization) headers.authorization = authorization;
  const list = { url: `${target.petsUrl}?limit=20`, method: 'GET' };
  if (s.request === 'create') {
    headers['content-type'] = 'application/json';
    return { ...load, url: target.petsUrl, method: 'POST', headers, body: NEW_PET };
  }
  return { ...load, ...list, headers };
}

function authorizationFor(system: BenchSystem, target: Target, request: RequestKind): string | undefined {
  if (request === 'anonymous') return undefined;
  if (target.name === 'direct') return system.directAuthorization();
  // The bare hop replaces whatever it gets; it gets what a client sends the gateway.
  const key = request === 'refused' ? target.refusedKey : (target.servedKey ?? system.targets['gateway-redis']?.servedKey);
  if (!key) throw new Error(`no key for ${target.name}/${request}`);
  return `Bearer ${key}`;
}
