import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { IN_FLIGHT_SLOT, InFlightResponses } from './in-flight';

const response = () => new ServerResponse(new IncomingMessage(new Socket()));

describe('InFlightResponses', () => {
  it('when responses come and go, then it holds exactly those in flight, and a deleted one, deleted again or never added, changes nothing', () => {
    const inFlight = new InFlightResponses();
    const [a, b, c] = [response(), response(), response()];
    inFlight.add(a);
    inFlight.add(b);
    inFlight.add(c);
    inFlight.delete(b);
    expect(inFlight.all()).toEqual([a, c]);
    expect(inFlight.size).toBe(2);
    inFlight.delete(b);
    inFlight.delete(response());
    expect(inFlight.all()).toEqual([a, c]);
    expect(inFlight.size).toBe(2);
    inFlight.delete(a);
    inFlight.delete(c);
    expect(inFlight.all()).toEqual([]);
    expect(inFlight.size).toBe(0);
  });

  it('when requests keep coming one after another, then slots are reused: it never holds more slots than responses were in flight at once', () => {
    const inFlight = new InFlightResponses();
    const slotsUsed = new Set<number>();
    const open: ServerResponse[] = [];
    for (let i = 0; i < 10_000; i++) {
      const res = response();
      inFlight.add(res);
      slotsUsed.add((res as unknown as Record<symbol, number>)[IN_FLIGHT_SLOT]!);
      open.push(res);
      // Three in flight at most: the oldest answered as the fourth arrives.
      if (open.length > 3) inFlight.delete(open.shift()!);
    }
    expect(slotsUsed).toEqual(new Set([0, 1, 2, 3]));
    expect(inFlight.size).toBe(3);
  });

  it('when a response leaves, then it no longer holds a slot number, so a later delete of it cannot empty the slot another response took', () => {
    const inFlight = new InFlightResponses();
    const [first, second] = [response(), response()];
    inFlight.add(first);
    inFlight.delete(first);
    expect((first as unknown as Record<symbol, unknown>)[IN_FLIGHT_SLOT]).toBeUndefined();
    inFlight.add(second);
    inFlight.delete(first);
    expect(inFlight.all()).toEqual([second]);
  });
});
