import type { RequestHandler } from 'express';
import request from 'supertest';
import { stageApp } from '../../test/support/stage-app';
import { browserAccess } from './cors';

const LISTED = 'https://app.example.com';
const PREFLIGHTS = { perMinute: 600, ipv6PrefixLength: 64 };
const app = stageApp(browserAccess([LISTED, 'https://other.example.com'], PREFLIGHTS) as RequestHandler);

/** The Access-Control-* fields of an answer. */
function accessControlOf(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith('access-control-')));
}

const EXPOSED = 'X-RateLimit-Limit,X-RateLimit-Remaining,X-RateLimit-Reset,RateLimit,RateLimit-Policy,Retry-After,X-Request-Id,Link,Location,Deprecation,Sunset,Idempotent-Replayed';

describe('the browserAccess stage', () => {
  it('when no origin is listed, then there is no stage', () => {
    expect(browserAccess([], PREFLIGHTS)).toBeUndefined();
  });

  it('when a listed origin sends a preflight, then it is answered 204 here, before any key is asked for', async () => {
    const res = await request(app).options('/v1/pets').set('Origin', LISTED).set('Access-Control-Request-Method', 'POST').set('Access-Control-Request-Headers', 'authorization, content-type').expect(204);
    expect(accessControlOf(res.headers as Record<string, string>)).toEqual({
      'access-control-allow-origin': LISTED,
      'access-control-allow-methods': 'GET,HEAD,POST',
      'access-control-allow-headers': 'authorization,content-type,idempotency-key,x-request-id',
      'access-control-max-age': '600',
      'access-control-expose-headers': EXPOSED,
    });
    expect(res.headers.vary).toMatch(/\bOrigin\b/);
  });

  it.each([
    ['GET', 'get'],
    // An OPTIONS without Access-Control-Request-Method is no preflight: later stages answer it.
    ['OPTIONS without Access-Control-Request-Method', 'options'],
  ] as const)('when a listed origin sends %s, then it goes on, with Allow-Origin and the fields scripts may read', async (_case, method) => {
    const res = await request(app)[method]('/v1/pets').set('Origin', LISTED).expect(200);
    expect(accessControlOf(res.headers as Record<string, string>)).toEqual({ 'access-control-allow-origin': LISTED, 'access-control-expose-headers': EXPOSED });
    expect(res.headers.vary).toMatch(/\bOrigin\b/);
  });

  it.each([
    ['an origin not listed, preflight', { Origin: 'https://evil.example.com', 'Access-Control-Request-Method': 'POST' }],
    ['an origin not listed', { Origin: 'https://evil.example.com' }],
    ['no Origin', {}],
  ])('when the request comes from %s, then it goes on with no Access-Control-* field, still varying by Origin', async (_case, headers) => {
    const method = 'Access-Control-Request-Method' in headers ? 'options' : 'get';
    const res = await request(app)[method]('/v1/pets').set(headers).expect(200);
    expect(accessControlOf(res.headers as Record<string, string>)).toEqual({});
    expect(res.headers.vary).toMatch(/\bOrigin\b/);
  });

  it('when one address sends more preflights than PREFLIGHT_PER_MINUTE, then 429 rate_limited with Retry-After; its other requests go on', async () => {
    const limited = stageApp(browserAccess([LISTED], { perMinute: 2, ipv6PrefixLength: 64 }) as RequestHandler);
    const preflight = () => request(limited).options('/v1/pets').set('Origin', LISTED).set('Access-Control-Request-Method', 'POST');
    await preflight().expect(204);
    await preflight().expect(204);
    const refused = await preflight().expect(429);
    expect(refused.body).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(refused.body.message).toMatch(/preflight/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Only preflights count against it: the address's actual requests are the later stages' business.
    await request(limited).get('/v1/pets').set('Origin', LISTED).expect(200);
    await request(limited).options('/v1/pets').set('Origin', LISTED).expect(200);
  });
});
