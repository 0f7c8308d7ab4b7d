import { LookupGate } from './lookup-gate';

/** Admits `n` look-ups for `client`; returns what each admission answered so far (undefined: still waiting). */
function ask(gate: LookupGate, client: string, n: number) {
  const answers: (boolean | undefined)[] = Array.from({ length: n }, () => undefined);
  const admissions = answers.map((_, i) => {
    const admission = gate.admission(client);
    void admission.admit().then((ok) => (answers[i] = ok));
    return admission;
  });
  return { answers, admissions };
}

const admitted = (answers: (boolean | undefined)[]) => answers.filter((a) => a === true).length;

describe('LookupGate', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it("when a client stays within its budget, then every look-up starts at once; past it, look-ups wait for the queue's rate instead of being refused", async () => {
    const gate = new LookupGate({ perClientPerMinute: 5, queuedPerSecond: 2 });
    const { answers } = ask(gate, '198.51.100.1', 12);
    await jest.advanceTimersByTimeAsync(0);
    // 5 from the budget, then the queue's first second of tokens (2) at once; the other 5 wait.
    expect(admitted(answers)).toBe(7);
    expect(answers.every((a) => a !== false)).toBe(true);
    expect(gate.stats).toEqual({ immediate: 5, queued: 2, refused: 0, waiting: 5 });
    await jest.advanceTimersByTimeAsync(1_000);
    expect(admitted(answers)).toBe(9);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(admitted(answers)).toBe(11);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(admitted(answers)).toBe(12);
    expect(gate.stats).toEqual({ immediate: 5, queued: 7, refused: 0, waiting: 0 });
    gate.close();
  });

  it('when look-ups wait, then they are released in arrival order, whichever client asked', async () => {
    const gate = new LookupGate({ perClientPerMinute: 1, queuedPerSecond: 1 });
    const order: string[] = [];
    const go = (client: string) => void gate.admission(client).admit().then(() => order.push(client));
    for (const client of ['a', 'a', 'a', 'b', 'a', 'b']) go(client);
    await jest.advanceTimersByTimeAsync(10_000);
    // At once: a (its budget), b (its budget), a (the queue's one token). Then, one a second, in
    // arrival order: a, a, b.
    expect(order).toEqual(['a', 'b', 'a', 'a', 'a', 'b']);
    gate.close();
  });

  it('when keys turn out valid, then their units come back, so a client with only valid keys never waits', async () => {
    const gate = new LookupGate({ perClientPerMinute: 3, queuedPerSecond: 1 });
    for (let i = 0; i < 50; i++) {
      const admission = gate.admission('203.0.113.9');
      expect(await admission.admit()).toBe(true);
      admission.settle?.(true);
    }
    expect(gate.stats).toMatchObject({ immediate: 50, queued: 0 });
    // Unknown keys are not refunded: the budget is spent after 3.
    for (let i = 0; i < 3; i++) gate.admission('203.0.113.9').admit().then(() => undefined);
    const { answers } = ask(gate, '203.0.113.9', 1);
    await jest.advanceTimersByTimeAsync(0);
    expect(gate.stats).toMatchObject({ immediate: 53, queued: 1 });
    expect(answers).toEqual([true]);
    gate.close();
  });

  it("when a look-up came from the queue, then a valid key's settle refunds nothing it did not take", async () => {
    const gate = new LookupGate({ perClientPerMinute: 1, queuedPerSecond: 100 });
    await gate.admission('c').admit();
    const queued = gate.admission('c');
    expect(await queued.admit()).toBe(true);
    queued.settle?.(true);
    await jest.advanceTimersByTimeAsync(0);
    expect(gate.stats).toMatchObject({ immediate: 1, queued: 1 });
    await gate.admission('c').admit();
    expect(gate.stats).toMatchObject({ immediate: 1, queued: 2 });
    gate.close();
  });

  it("when a minute passes, then a client's budget is full again", async () => {
    const gate = new LookupGate({ perClientPerMinute: 4, queuedPerSecond: 1_000 });
    for (let i = 0; i < 4; i++) await gate.admission('x').admit();
    await gate.admission('x').admit();
    expect(gate.stats).toMatchObject({ immediate: 4, queued: 1 });
    jest.setSystemTime(Date.now() + 59_999);
    await gate.admission('x').admit();
    expect(gate.stats).toMatchObject({ immediate: 4, queued: 2 });
    jest.setSystemTime(Date.now() + 1);
    for (let i = 0; i < 4; i++) await gate.admission('x').admit();
    expect(gate.stats).toMatchObject({ immediate: 8, queued: 2 });
    gate.close();
  });

  it('when more look-ups wait than the queue holds, then the extra ones are not admitted', async () => {
    const gate = new LookupGate({ perClientPerMinute: 1, queuedPerSecond: 1, maxQueued: 3 });
    const { answers } = ask(gate, 'flood', 7);
    await jest.advanceTimersByTimeAsync(0);
    // 1 from the budget, 1 queue token at once, 3 waiting, 2 refused.
    expect(answers).toEqual([true, true, undefined, undefined, undefined, false, false]);
    expect(gate.stats).toEqual({ immediate: 1, queued: 1, refused: 2, waiting: 3 });
    gate.close();
    await jest.advanceTimersByTimeAsync(0);
    expect(answers.slice(2, 5)).toEqual([true, true, true]); // closing lets the waiting ones go
  });

  it('when the default queue bound applies, then it is ten seconds of the queue rate', async () => {
    const gate = new LookupGate({ perClientPerMinute: 1, queuedPerSecond: 2 });
    const { answers } = ask(gate, 'flood', 30);
    await jest.advanceTimersByTimeAsync(0);
    expect(gate.stats).toEqual({ immediate: 1, queued: 2, refused: 7, waiting: 20 });
    expect(answers.filter((a) => a === false)).toHaveLength(7);
    gate.close();
  });
});
