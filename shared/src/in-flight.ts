import type { ServerResponse } from 'node:http';

/** Where a response keeps the number of its slot while it is in flight (given at birth on Node 20 and 22: `app-prototypes.ts`). */
export const IN_FLIGHT_SLOT = Symbol('in-flight slot');

/**
 * Objects held in the slots of an array, each holding its slot's number under `slotKey`, a freed
 * slot reused by the next: a collection that gains and loses members all the time without the
 * garbage a `Set` keeps (below). One object belongs to at most one collection per key.
 *
 * Not a Set (issue 29, docs/performance.md). A Set that gains and loses an entry on every request
 * is rebuilt every few dozen requests (its table fills with deleted entries), and V8 13 (Node 24)
 * leaves each old table pointing at its successor and at the responses it held. Once one old
 * table has been moved to the old generation, the young collector keeps every later table, and
 * every response they held with its request, until the next full collection: on Node 24 a fifth
 * of all the gateway allocated survived its young collections (4 % without the Set), and those
 * collections cost 4 times the bare Express hop's. The array here only grows, to the most
 * members ever held at once, and a slot is emptied in place.
 */
export class SlotCollection<T extends object> {
  private readonly slots: (T | undefined)[] = [];
  /** Slots emptied and not yet reused: numbers only, so a pop or a push never moves a member. */
  private readonly free: number[] = [];

  constructor(private readonly slotKey: symbol) {}

  add(member: T): void {
    const slot = this.free.length > 0 ? this.free.pop()! : this.slots.length;
    this.slots[slot] = member;
    (member as Record<symbol, unknown>)[this.slotKey] = slot;
  }

  /** Idempotent: an object not (or no longer) held is left as it is. */
  delete(member: T): void {
    const slot = (member as Record<symbol, unknown>)[this.slotKey] as number | undefined;
    if (slot === undefined || this.slots[slot] !== member) return;
    this.slots[slot] = undefined;
    (member as Record<symbol, unknown>)[this.slotKey] = undefined;
    this.free.push(slot);
  }

  /** Every slot is either held or free. */
  get size(): number {
    return this.slots.length - this.free.length;
  }

  /** The members now (a copy: what `use` does to them may take them out). */
  all(): T[] {
    return this.slots.filter((member): member is T => member !== undefined);
  }
}

/** The responses a server has in flight, so that a drain can close their connections after them. */
export class InFlightResponses extends SlotCollection<ServerResponse> {
  constructor() {
    super(IN_FLIGHT_SLOT);
  }
}
