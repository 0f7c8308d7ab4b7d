import { ReplicaSet } from './replicas';

describe('ReplicaSet', () => {
  let now = 0;
  const set = () => new ReplicaSet(['http://a:1', 'http://b:2', 'http://c:3'], { backoffMs: 100, maxBackoffMs: 400, now: () => now });
  const urls = (s: ReplicaSet, n: number) => Array.from({ length: n }, () => s.pick()!.url);

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
    expect(s.pick(tried)?.url).toBe('http://b:2');
    tried.add(s.replicas[1]!);
    expect(s.pick(tried)).toBeUndefined();
  });

  it('when every replica is backing off, then the one free soonest is still tried', () => {
    const s = set();
    s.failed(s.replicas[0]!);
    s.failed(s.replicas[0]!);
    now += 10;
    s.failed(s.replicas[1]!);
    now += 10;
    s.failed(s.replicas[2]!);
    expect(s.pick()?.url).toBe('http://b:2');
  });

  it('when no URL is given, then it refuses to be built', () => {
    expect(() => new ReplicaSet([])).toThrow(/at least one/);
  });

  it('when a base URL carries a path or an IPv6 host, then both are kept apart', () => {
    const [replica] = new ReplicaSet(['http://[::1]:8082/internal/pets/']).replicas;
    expect(replica).toMatchObject({ hostname: '::1', port: 8082, basePath: '/internal/pets' });
  });
});
