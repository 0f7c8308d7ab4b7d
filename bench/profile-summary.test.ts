import { featureOf, ownerOf, summarise, type CpuProfile } from './profile-summary';

const frame = (functionName: string, url: string, lineNumber = 0) => ({ functionName, url, lineNumber });
const ROOT_URL = 'file:///repo/dist';

/**
 * (root) ─ handler (gateway) ─ log (pino) ─ write (node:net) ─ writev (native)
 *        ├ (idle)
 *        └ (garbage collector)
 */
function profile(): CpuProfile {
  return {
    nodes: [
      { id: 1, callFrame: frame('(root)', ''), children: [2, 6, 7] },
      { id: 2, callFrame: frame('handler', `${ROOT_URL}/gateway/src/pipeline/proxy.js`, 9), children: [3] },
      { id: 3, callFrame: frame('log', `${ROOT_URL}/../node_modules/pino/lib/proto.js`, 205), children: [4] },
      { id: 4, callFrame: frame('write', 'node:net'), children: [5] },
      { id: 5, callFrame: frame('writev', '') },
      { id: 6, callFrame: frame('(idle)', '') },
      { id: 7, callFrame: frame('(garbage collector)', '') },
    ],
    // 1 ms per sample: handler 1, log 1, writev 2, idle 4, gc 2.
    samples: [2, 3, 5, 5, 6, 6, 6, 6, 7, 7],
    timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
    startTime: 0,
    endTime: 10_000,
  };
}

describe('profile summary', () => {
  it('when samples are idle, then they count in the total but not in the busy time the shares are of', () => {
    const s = summarise(profile());
    expect({ total: s.totalMs, busy: s.busyMs }).toEqual({ total: 10, busy: 6 });
    expect(s.self.map((e) => [e.name, e.ms])).toEqual([
      ['writev', 2],
      ['(garbage collector)', 2],
      ['handler', 1],
      ['log', 1],
    ]);
    expect(s.self[0]!.share).toBeCloseTo(2 / 6, 3);
  });

  it('when a function is on the stack of a sample, then the sample counts in its inclusive time, Node internals left out', () => {
    const inclusive = Object.fromEntries(summarise(profile()).inclusive.map((e) => [e.name, e.ms]));
    expect(inclusive).toEqual({ handler: 4, log: 3 });
  });

  it("when Node's internals do work for a package, then their time is charged to that package", () => {
    const owners = Object.fromEntries(summarise(profile()).byOwner.map((e) => [e.name, e.ms]));
    expect(owners).toEqual({ pino: 3, 'gateway/src/pipeline/proxy': 1, '(garbage collector)': 2 });
    const features = Object.fromEntries(summarise(profile()).byFeature.map((e) => [e.name, e.ms]));
    expect(features['access log (pino-http, pino, redaction, serializers, sonic-boom)']).toBe(3);
    expect(features['proxy (http-proxy-middleware, http-proxy)']).toBe(1);
  });

  it('when a window is given, then only the samples taken within it count', () => {
    // Samples are stamped 1000, 2000, …: the window 2500–4500 holds the two writev samples.
    const s = summarise(profile(), 20, { fromMicros: 2_500, toMicros: 4_500 });
    expect(s.self.map((e) => [e.name, e.ms])).toEqual([['writev', 2]]);
  });

  it('when frames come from packages, scoped packages, the build or Node, then each is named by its owner', () => {
    expect(ownerOf(frame('f', 'file:///x/node_modules/@pinojs/redact/index.js'))).toBe('@pinojs/redact');
    expect(ownerOf(frame('f', 'file:///x/node_modules/a/node_modules/ioredis/built/Redis.js'))).toBe('ioredis');
    expect(ownerOf(frame('f', 'file:///repo/dist/gateway/src/limits/redis-limiter.js'))).toBe('gateway/src/limits/redis-limiter');
    expect(ownerOf(frame('f', 'node:_http_server'))).toBe('node');
    expect(ownerOf(frame('writev', ''))).toBe('(native)');
    expect(featureOf('gateway/src/limits/redis-limiter')).toBe('Redis client (ioredis) and the limiter');
    expect(featureOf('some-unknown-package')).toBe('other');
  });
});
