import { AnimalStoreError } from './errors';
import { RateLimitPacer } from './rate-limit';

/** The headers of an answer in the window that resets at Unix second `reset`, `t` seconds from now. */
const answer = (remaining: number, reset: number, t: number) =>
  new Headers({ 'X-RateLimit-Limit': '3', 'X-RateLimit-Remaining': String(remaining), 'X-RateLimit-Reset': String(reset), RateLimit: `"minute";r=${remaining};t=${t}` });

describe('RateLimitPacer', () => {
  const now = 1_000_000;
  const signal = new AbortController().signal;
  const pacer = () => new RateLimitPacer(() => now);

  it('when concurrent answers of one window arrive out of order, then the lowest remaining count holds', async () => {
    const p = pacer();
    await p.acquire(now + 1_000, signal);
    await p.acquire(now + 1_000, signal);
    p.settled(answer(0, 1_030, 30), 200, undefined);
    p.settled(answer(1, 1_030, 30), 200, undefined); // sent first, answered last
    await expect(p.acquire(now + 1_000, signal)).rejects.toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 30 });
  });

  it('when an answer about an earlier window arrives after one of the current window, then it is ignored', async () => {
    const p = pacer();
    await p.acquire(now + 1_000, signal);
    await p.acquire(now + 1_000, signal);
    p.settled(answer(0, 1_060, 60), 200, undefined);
    p.settled(answer(2, 1_001, 1), 200, undefined);
    await expect(p.acquire(now + 1_000, signal)).rejects.toBeInstanceOf(AnimalStoreError);
  });

  it('when requests are left, then as many calls go at once as are left; the next waits for their answers', async () => {
    const p = pacer();
    await p.acquire(now, signal);
    p.settled(answer(2, 1_030, 30), 200, undefined);
    await p.acquire(now + 1_000, signal);
    await p.acquire(now + 1_000, signal);
    let third: 'waiting' | 'sent' | 'refused' = 'waiting';
    const thirdCall = p.acquire(now + 1_000, signal).then(() => (third = 'sent'), () => (third = 'refused'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(third).toBe('waiting'); // both left are in flight: their answers will say
    p.settled(answer(1, 1_030, 30), 200, undefined);
    await new Promise((resolve) => setImmediate(resolve));
    expect(third).toBe('waiting');
    p.settled(answer(0, 1_030, 30), 200, undefined);
    await thirdCall;
    expect(third).toBe('refused'); // none left until the window turns, past this call's deadline
  });

  it('when a 429 said Retry-After: 5, then no call goes before those 5 s, whatever the counts say', async () => {
    const p = pacer();
    await p.acquire(now, signal);
    p.settled(new Headers({ 'Retry-After': '5' }), 429, 5);
    await expect(p.acquire(now + 4_000, signal)).rejects.toMatchObject({ retryAfter: 5 });
  });
});
