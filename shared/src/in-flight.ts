import type { ServerResponse } from 'node:http';

/** Where a response keeps the number of its slot while it is in flight (given at birth on Node 20 and 22: `app-prototypes.ts`). */
export const IN_FLIGHT_SLOT = Symbol('in-flight slot');

type Tracked = ServerResponse & { [IN_FLIGHT_SLOT]?: number };

/**
 * The responses a server has in flight, so that a drain can close their connections after them:
 * slots of an array, each response holding its slot's number, a freed slot reused by the next.
 *
 * Not a Set (issue 29, docs/performance.md). A Set that gains and loses an entry on every request
 * is rebuilt every few dozen requests (its table fills with deleted entries), and V8 13 (Node 24)
 * leaves each old table pointing at its successor and at the responses it held. Once one old
 * table has been moved to the old generation, the young collector keeps every later table, and
 * every response they held with its request, until the next full collection: on Node 24 a fifth
 * of all the gateway allocated survived its young collections (4 % without the Set), and those
 * collections cost 4 times the bare Express hop's. The array here only grows, to the most
 * responses ever in flight at once, and a slot is emptied in place.
 */
export class InFlightResponses {
  private readonly slots: (Tracked | undefined)[] = [];
  /** Slots emptied and not yet reused: numbers only, so a pop or a push never moves a response. */
  private readonly free: number[] = [];

  add(res: ServerResponse): void {
    const slot = this.free.length > 0 ? this.free.pop()! : this.slots.length;
    this.slots[slot] = res;
    (res as Tracked)[IN_FLIGHT_SLOT] = slot;
  }

  /** Idempotent: a response not (or no longer) in flight is left as it is. */
  delete(res: ServerResponse): void {
    const slot = (res as Tracked)[IN_FLIGHT_SLOT];
    if (slot === undefined || this.slots[slot] !== res) return;
    this.slots[slot] = undefined;
    (res as Tracked)[IN_FLIGHT_SLOT] = undefined;
    this.free.push(slot);
  }

  /** Every slot is either held or free. */
  get size(): number {
    return this.slots.length - this.free.length;
  }

  /** The responses in flight now (a copy: what `use` does to them may take them out). */
  all(): ServerResponse[] {
    return this.slots.filter((res): res is Tracked => res !== undefined);
  }
}
