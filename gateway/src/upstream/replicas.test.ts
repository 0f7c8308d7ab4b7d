import { ReplicaSet, type Replica } from './replicas';

describe('ReplicaSet', () => {
  let now = 0;
  const set = () => new ReplicaSet(['http://a:1', 'http://b:2', 'http://c:3'], { backoffMs: 100, maxBackoffMs: 400, now: () => now });
  const urls = (s: ReplicaSet, n: number) => Array.from({ length: n }, () => s.take()!.replica.url);

  beforeEach(() => {
    now = 1_000;
  });

  it('when every replica is healthy, then requests go round robin', () => {
    expect(urls(set(), 4)).toEqual(['http://a:1', 'http://b:2', 'http://c:3', 'http://a:1']);
  });

  it('when a replica failed, then it is left out for its back-off, doubling with each further failure up to the maximum', () => {
    const s = set();
    const b = s.replicas[1]!;
    s.failed(b);
    expect(urls(s, 4)).toEqual(['http://a:1', 'http://c:3', 'http://a:1', 'http://c:3']);
    now += 100;
    expect(s.isAvailable(b)).toBe(true);
    s.failed(b);
    s.failed(b);
    s.failed(b);
    expect(b.unavailableUntil - now).toBe(400);
    s.succeeded(b);
    expect(s.isAvailable(b)).toBe(true);
  });

  it('when a request has tried some replicas, then it is never sent to them again, and undefined once all were tried', () => {
    const s = set();
    const tried = new Set([s.replicas[0]!, s.replicas[2]!]);
    expect(s.take(tried)?.replica.url).toBe('http://b:2');
    tried.add(s.replicas[1]!);
    expect(s.take(tried)?.replica).toBeUndefined();
  });

  it('when every replica is backing off, then the one free soonest is still tried', () => {
    const s = set();
    s.failed(s.replicas[0]!);
    s.failed(s.replicas[0]!);
    now += 10;
    s.failed(s.replicas[1]!);
    now += 10;
    s.failed(s.replicas[2]!);
    expect(s.take()?.replica.url).toBe('http://b:2');
  });

  it('when no URL is given, then it refuses to be built', () => {
    expect(() => new ReplicaSet([])).toThrow(/at least one/);
  });

  it('when a base URL carries a path or an IPv6 host, then both are kept apart', () => {
    const [replica] = new ReplicaSet(['http://[::1]:8082/internal/pets/']).replicas;
    expect(replica!.target).toMatchObject({ hostname: '::1', host: '[::1]:8082', port: 8082, path: '/internal/pets' });
  });

  it('when a replica is back from its back-off, then one request probes it and the others pass it by until that one succeeds, fails or runs out of time', () => {
    const s = new ReplicaSet(['http://a:1', 'http://b:2'], { backoffMs: 100, probeMs: 1_000, now: () => now });
    const b = s.replicas[1]!;
    const toB = (n: number) => urls(s, n).filter((url) => url === b.url).length;
    s.failed(b);
    now += 100;
    expect(toB(4)).toBe(1);
    s.failed(b); // the probe failed: a longer back-off
    now += 199;
    expect(toB(4)).toBe(0);
    now += 1;
    expect(toB(4)).toBe(1);
    now += 1_000; // the probe's outcome never came (its client went away): another request probes
    expect(toB(4)).toBe(1);
    s.succeeded(b);
    expect(toB(4)).toBe(2);
  });

  it('when a request is not safe to repeat, then it does not probe a replica back from its back-off while a healthy one is left', () => {
    const s = new ReplicaSet(['http://a:1', 'http://b:2'], { backoffMs: 100, probeMs: 1_000, now: () => now });
    const b = s.replicas[1]!;
    s.failed(b);
    now += 100;
    const posts = Array.from({ length: 4 }, () => s.take(undefined, false)!.replica.url);
    expect(posts).toEqual(Array(4).fill('http://a:1'));
    // With the healthy one tried already, it goes to the recovering one (and probes it).
    expect(s.take(new Set([s.replicas[0]!]), false)?.replica).toBe(b);
    expect(s.isAvailable(b)).toBe(false);
  });

  it('when a probe is given up by its client, then the next request may probe; a failure or success learnt meanwhile stands', () => {
    const s = new ReplicaSet(['http://a:1', 'http://b:2'], { backoffMs: 100, probeMs: 1_000, now: () => now });
    const b = s.replicas[1]!;
    s.failed(b);
    now += 100;
    expect(s.take(new Set([s.replicas[0]!]))?.replica).toBe(b);
    const probeUntil = b.probeUntil;
    expect(s.anotherAvailable(new Set([s.replicas[0]!]))).toBe(false);
    s.abandoned(b, probeUntil);
    expect(s.anotherAvailable(new Set([s.replicas[0]!]))).toBe(true);
    s.failed(b);
    s.abandoned(b, probeUntil); // an old probe's client leaving changes nothing now
    expect(s.isAvailable(b)).toBe(false);
  });

  it('when a request falls back on a replica another request is probing, then it holds no probe of its own: its client leaving frees nothing', () => {
    const s = new ReplicaSet(['http://a:1', 'http://b:2'], { backoffMs: 100, probeMs: 1_000, now: () => now });
    const [a, b] = s.replicas as [Replica, Replica];
    s.failed(a);
    now += 100;
    const probe = s.take(new Set([b]))!;
    expect(probe).toEqual({ replica: a, probeUntil: now + 1_000 });
    // b reset this other request's try: a is all that is left, taken without a probe of its own.
    const fallback = s.take(new Set([b]))!;
    expect(fallback).toEqual({ replica: a, probeUntil: 0 });
    s.abandoned(a, fallback.probeUntil);
    expect(s.isAvailable(a)).toBe(false);
    s.abandoned(a, probe.probeUntil);
    expect(s.isAvailable(a)).toBe(true);
  });
});
