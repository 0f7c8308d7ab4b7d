import { createAccountWithKey, admin, startSystem, type SystemHandle } from '../helpers/system';

let system: SystemHandle;
let url: string;
let adminUrl: string;

beforeAll(async () => {
  system = await startSystem();
  ({ url, adminUrl } = system.gateways[0]!);
});
afterAll(() => system?.stop());

async function expectUnauthorized(response: Response): Promise<void> {
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
  expect(response.headers.get('x-ratelimit-limit')).not.toBeNull();
  const body = (await response.json()) as Record<string, unknown>;
  expect(body).toEqual({ code: 'unauthorized', message: expect.any(String), status: 401 });
}

describe('when a client calls the gateway', () => {
  it('when the Authorization header is missing, then 401 unauthorized with WWW-Authenticate', async () => {
    await expectUnauthorized(await fetch(`${url}/v1/pets`));
  });

  it('when the scheme is not Bearer, then 401', async () => {
    const { key } = await createAccountWithKey(adminUrl);
    await expectUnauthorized(await fetch(`${url}/v1/pets`, { headers: { authorization: `Basic ${key}` } }));
    await expectUnauthorized(await fetch(`${url}/v1/pets`, { headers: { authorization: key } }));
  });

  it('when the key is empty, malformed, mistyped or unknown, then 401', async () => {
    const { key } = await createAccountWithKey(adminUrl);
    const mistyped = `${key.slice(0, -1)}${key.endsWith('a') ? 'b' : 'a'}`;
    for (const candidate of ['', 'not-a-key', mistyped, 'ask_live_0000000000000000000000000000']) {
      await expectUnauthorized(await fetch(`${url}/v1/pets`, { headers: { authorization: `Bearer ${candidate}` } }));
    }
  });

  it('when the key is sent in the query string, then it is ignored and the answer is 401', async () => {
    const { key } = await createAccountWithKey(adminUrl);
    for (const name of ['api_key', 'apiKey', 'key', 'access_token']) {
      await expectUnauthorized(await fetch(`${url}/v1/pets?${name}=${key}`));
    }
  });

  it('when the scheme is written in any case, then the key is accepted (RFC 6750)', async () => {
    const { key } = await createAccountWithKey(adminUrl);
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
      const response = await fetch(`${url}/v1/pets`, { headers: { authorization: `${scheme} ${key}` } });
      expect(response.status).toBe(200);
    }
  });

  it('when a key is revoked, then it is refused with 401 while other keys of the account still work', async () => {
    const { accountId, keyId, key } = await createAccountWithKey(adminUrl);
    const other = await admin<{ key: string }>(adminUrl, 'POST', `/admin/accounts/${accountId}/keys`);
    expect((await fetch(`${url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);

    expect((await admin(adminUrl, 'DELETE', `/admin/keys/${keyId}`)).status).toBe(204);

    await expectUnauthorized(await fetch(`${url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } }));
    expect((await fetch(`${url}/v1/pets`, { headers: { authorization: `Bearer ${other.body.key}` } })).status).toBe(200);
  });
});
