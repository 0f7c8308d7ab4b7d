import fc from 'fast-check';
import { admin, createAccountWithKey } from '../helpers/system';
import { burst, call, expectError, rateLimitOf, statusCounts, type Reply } from '../helpers/traffic';
import { expectChangedWithin } from '../helpers/propagation';

/** Where a client-contract suite sends its requests: one or more gateways sharing their state. */
export interface ContractTarget {
  /** Public base URLs of the gateways (requests alternate between them). */
  gateways: string[];
  /** One gateway's admin URL (accounts and keys are shared state). */
  adminUrl: string;
}

/**
 * What a client sees of the API, whatever the deployment behind it: the embedded defaults, or
 * PostgreSQL, a Redis Cluster and several replicas of each service. The same tests run against each
 * (see the client-contract-*.test.ts files), so the scaled deployment is held to the same contract.
 */
export function clientContract(target: () => ContractTarget): void {
  let turn = 0;
  /** The next gateway in turn, so consecutive requests cross replicas. */
  const base = () => {
    const { gateways } = target();
    return `${gateways[turn++ % gateways.length]}/v1`;
  };

  it('when pets are created, fetched and listed through alternating gateways, then each answer is the contract', async () => {
    const { key } = await createAccountWithKey(target().adminUrl, { plan: 'business' });
    const created = await call(`${base()}/pets`, { key, method: 'POST', body: { name: 'Contract Rex', categoryId: 7 } });
    expect(created.status).toBe(201);
    const pet = created.json as { id: number };
    expect(created.headers.location).toBe(`/v1/pets/${pet.id}`);
    expect(created.json).toEqual({ id: pet.id, name: 'Contract Rex', categoryId: 7, status: 'available' });
    rateLimitOf(created);

    const fetched = await call(`${base()}/pets/${pet.id}`, { key });
    expect(fetched.status).toBe(200);
    expect(fetched.json).toEqual(created.json);
    expect(fetched.headers.deprecation).toMatch(/^@\d+$/);
    expect(fetched.headers.sunset).toBe('Thu, 05 Dec 2030 00:00:00 GMT');

    const listed = await call(`${base()}/pets?limit=100&status=available`, { key });
    expect(listed.status).toBe(200);
    expect(listed.json).toEqual(expect.arrayContaining([created.json]));
  });

  it('when the pages are walked across gateways while more pets exist, then every pet comes exactly once, in id order', async () => {
    const { key } = await createAccountWithKey(target().adminUrl, { plan: 'business' });
    const names = Array.from({ length: 7 }, (_, i) => `Walk ${Date.now()}-${i}`);
    for (const name of names) expect((await call(`${base()}/pets`, { key, method: 'POST', body: { name, categoryId: 1, status: 'pending' } })).status).toBe(201);
    const seen: Array<{ id: number; name: string }> = [];
    let next: string | undefined = '/v1/pets?limit=3&status=pending';
    for (let pages = 0; next !== undefined; pages++) {
      if (pages > 1_000) throw new Error('the walk does not end');
      const page: Reply = await call(`${base().replace(/\/v1$/, '')}${next}`, { key });
      expect(page.status).toBe(200);
      seen.push(...(page.json as unknown as Array<{ id: number; name: string }>));
      next = /^<(\/v1\/pets\?[^>]+)>; rel="next"$/.exec(page.headers.link ?? '')?.[1];
    }
    const ids = seen.map((pet) => pet.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(seen.filter((pet) => names.includes(pet.name)).map((pet) => pet.name)).toEqual(names);
  });

  it('when requests are refused, then each refusal is the Error shape with its code, and carries the rate-limit headers', async () => {
    const { key } = await createAccountWithKey(target().adminUrl, { plan: 'business' });
    const cases: Array<[Promise<Reply>, number, string]> = [
      [call(`${base()}/pets`), 401, 'unauthorized'],
      [call(`${base()}/pets`, { key: 'ask_live_not-a-key' }), 401, 'unauthorized'],
      [call(`${base()}/pets?limit=0`, { key }), 400, 'invalid_parameter'],
      [call(`${base()}/pets?limit=5&limit=6`, { key }), 400, 'invalid_parameter'],
      [call(`${base()}/pets`, { key, method: 'POST', body: { name: 'x', categoryId: '1' } }), 400, 'invalid_body'],
      [call(`${base()}/pets`, { key, method: 'POST', body: '{"name":', headers: { 'content-type': 'application/json' } }), 400, 'malformed_json'],
      [call(`${base()}/pets`, { key, method: 'POST', body: 'name=x', headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_media_type'],
      [call(`${base()}/pets`, { key, method: 'POST', body: JSON.stringify({ name: 'x'.repeat(17_000), categoryId: 1 }) }), 413, 'payload_too_large'],
      [call(`${base()}/pets/999999999`, { key }), 404, 'not_found'],
      [call(`${base()}/pets/abc`, { key }), 400, 'invalid_parameter'],
      [call(`${base()}/nowhere`, { key }), 404, 'not_found'],
      [call(`${base()}/pets/1`, { key, method: 'DELETE' }), 405, 'method_not_allowed'],
      [call(`${base()}/store/orders`, { key }), 501, 'not_implemented'],
      [call(`${base()}/store/orders`, { key, method: 'POST', body: { petId: 1 } }), 501, 'not_implemented'],
      [call(`${base()}/store/orders/1`, { key, method: 'DELETE' }), 501, 'not_implemented'],
      [call(`${base()}/store`, { key, method: 'PUT', body: {} }), 501, 'not_implemented'],
    ];
    for (const [pending, status, code] of cases) {
      const reply = await pending;
      expectError(reply, status, code);
      rateLimitOf(reply);
    }
    expect((await call(`${base()}/pets`)).headers['www-authenticate']).toMatch(/^Bearer/);
    expect((await call(`${base()}/pets/1`, { key, method: 'DELETE' })).headers.allow).toBe('GET, HEAD');
  });

  it('when a request breaks any input rule, then 400 with the precise code naming what is wrong, and nothing is stored', async () => {
    const { key } = await createAccountWithKey(target().adminUrl, { plan: 'business' });
    const marker = `Refused ${Date.now()}`;
    const create = (body: unknown) => call(`${base()}/pets`, { key, method: 'POST', body });
    const cases: Array<[string, Promise<Reply>, string, RegExp]> = [
      ['name missing', create({ categoryId: 1 }), 'invalid_body', /^name /],
      ['name empty', create({ name: '', categoryId: 1 }), 'invalid_body', /^name /],
      ['name only white space', create({ name: '   ', categoryId: 1 }), 'invalid_body', /^name .*white space/],
      ['name of 101 characters', create({ name: `${marker}${'x'.repeat(101)}`, categoryId: 1 }), 'invalid_body', /^name /],
      ['name a number', create({ name: 5, categoryId: 1 }), 'invalid_body', /^name /],
      ['name with a NUL', create({ name: `${marker}\u0000`, categoryId: 1 }), 'invalid_body', /^name .*control characters/],
      ['name only a NUL', create({ name: '\u0000', categoryId: 1 }), 'invalid_body', /^name .*control characters/],
      ['name with a line feed', create({ name: `${marker}\n`, categoryId: 1 }), 'invalid_body', /^name .*control characters/],
      ['name with DEL', create({ name: `${marker}\u007f`, categoryId: 1 }), 'invalid_body', /^name .*control characters/],
      ['name with a lone surrogate', create({ name: `${marker}\ud800`, categoryId: 1 }), 'invalid_body', /^name /],
      ['categoryId a string', create({ name: marker, categoryId: '1' }), 'invalid_body', /^categoryId /],
      ['categoryId a fraction', create({ name: marker, categoryId: 1.5 }), 'invalid_body', /^categoryId /],
      ['categoryId 0', create({ name: marker, categoryId: 0 }), 'invalid_body', /^categoryId /],
      ['categoryId past 2^53-1', create({ name: marker, categoryId: 2 ** 53 }), 'invalid_body', /^categoryId /],
      ['status null', create({ name: marker, categoryId: 1, status: null }), 'invalid_body', /^status /],
      ['status unknown', create({ name: marker, categoryId: 1, status: 'lost' }), 'invalid_body', /^status /],
      ['an id sent', create({ id: 4, name: marker, categoryId: 1 }), 'invalid_body', /^id /],
      ['an unknown field', create({ name: marker, categoryId: 1, colour: 'brown' }), 'invalid_body', /^colour /],
      ['an array body', create([{ name: marker, categoryId: 1 }]), 'invalid_body', /body/],
      ['limit 101', call(`${base()}/pets?limit=101`, { key }), 'invalid_parameter', /^limit /],
      ['limit not a number', call(`${base()}/pets?limit=ten`, { key }), 'invalid_parameter', /^limit /],
      ['limit empty', call(`${base()}/pets?limit=`, { key }), 'invalid_parameter', /^limit /],
      ['status unknown in the query', call(`${base()}/pets?status=lost`, { key }), 'invalid_parameter', /^status /],
      ['status repeated', call(`${base()}/pets?status=sold&status=sold`, { key }), 'invalid_parameter', /^status /],
      ['a cursor not handed out', call(`${base()}/pets?cursor=abc.def`, { key }), 'invalid_parameter', /^cursor /],
      ['a cursor with a NUL', call(`${base()}/pets?cursor=%00`, { key }), 'invalid_parameter', /^cursor /],
      ['an unknown parameter', call(`${base()}/pets?staus=sold`, { key }), 'invalid_parameter', /"staus"/],
      ['petId zero', call(`${base()}/pets/0`, { key }), 'invalid_parameter', /petId/],
      ['petId with a NUL', call(`${base()}/pets/1%00`, { key }), 'invalid_parameter', /petId/],
    ];
    for (const [label, pending, code, message] of cases) {
      const reply = await pending;
      expect({ label, status: reply.status, code: reply.json?.code }).toEqual({ label, status: 400, code });
      expect({ label, message: reply.json?.message }).toEqual({ label, message: expect.stringMatching(message) });
    }
    const listed = await call(`${base()}/pets?limit=100`, { key });
    expect((listed.json as unknown as Array<{ name: string }>).filter((pet) => pet.name.startsWith(marker))).toEqual([]);
  });

  it('when names are arbitrary Unicode text, then each is stored exactly or refused 400 naming name, never a 500, and a control character is always refused', async () => {
    const { key } = await createAccountWithKey(target().adminUrl, { plan: 'business' });
    const hasControlCharacter = (text: string) => [...text].some((character) => character.codePointAt(0)! < 0x20 || character === '\u007f');
    // Any code point, lone surrogates included, half of them ASCII (where the control characters are).
    // Built by hand: fast-check's own `unit: 'binary'` string takes seconds to set up, blocking the event loop.
    const codePoint = fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0x80, max: 0x10ffff })).map((code) => String.fromCodePoint(code));
    const names = fc.array(codePoint, { minLength: 1, maxLength: 110 }).map((characters) => characters.join(''));
    await fc.assert(
      fc.asyncProperty(names, async (name) => {
        const reply = await call(`${base()}/pets`, { key, method: 'POST', body: { name, categoryId: 1 } });
        if (reply.status === 201) {
          expect(hasControlCharacter(name)).toBe(false);
          expect(reply.json?.name).toBe(name);
        } else {
          expect({ status: reply.status, code: reply.json?.code }).toEqual({ status: 400, code: 'invalid_body' });
          expect(reply.json?.message).toMatch(/^name /);
        }
      }),
      { numRuns: 150, examples: [['\u0000'], ['a\u0000b'], ['\u007f'], ['🐶'.repeat(100)], ['\u0085 \u2028']] },
    );
  }, 60_000);

  it('when a Free account sends 80 requests at once across the gateways, then exactly 60 are served and the rest refused 429 with Retry-After', async () => {
    const { key } = await createAccountWithKey(target().adminUrl, { plan: 'free' });
    const replies = await burst(80, () => call(`${base()}/pets?limit=1`, { key }));
    expect(statusCounts(replies)).toEqual({ 200: 60, 429: 20 });
    for (const reply of replies.filter((r) => r.status === 429)) {
      expectError(reply, 429, 'rate_limited');
      expect(Number(reply.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(rateLimitOf(reply).remaining).toBe(0);
    }
  });

  it('when a key is revoked, then every gateway refuses it within a second', async () => {
    const { key, keyId } = await createAccountWithKey(target().adminUrl, { plan: 'business' });
    for (const gateway of target().gateways) expect((await call(`${gateway}/v1/pets?limit=1`, { key })).status).toBe(200);
    expect((await admin(target().adminUrl, 'DELETE', `/admin/keys/${keyId}`)).status).toBe(204);
    const revokedAt = Date.now();
    // Within a second (1.5 s allowed here), judged by when each call was sent (helpers/propagation.ts).
    await Promise.all(target().gateways.map((gateway) => expectChangedWithin(revokedAt, 1_500, async () => (await call(`${gateway}/v1/pets?limit=1`, { key })).status === 401, `${gateway} refuses the revoked key`)));
  });

  it('when the interface description is fetched without a key, then it is the OpenAPI 3.1 document', async () => {
    const reply = await call(`${base()}/openapi.json`);
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ openapi: '3.1.0', info: { version: '1.0.0' } });
    rateLimitOf(reply);
  });
}
