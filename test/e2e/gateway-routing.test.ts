import { openApiDocument } from '../../shared/src/openapi';
import { ERROR_CODES } from '../../shared/src/errors';
import { createAccountWithKey, startSystem, type SystemHandle } from '../helpers/system';

let system: SystemHandle;
let url: string;
let auth: { authorization: string };

beforeAll(async () => {
  system = await startSystem();
  url = system.gateways[0]!.url;
  const { key } = await createAccountWithKey(system.gateways[0]!.adminUrl, { plan: 'business' });
  auth = { authorization: `Bearer ${key}` };
});
afterAll(() => system?.stop());

async function errorOf(response: Response): Promise<{ code: string; status: number; message: string }> {
  const body = (await response.json()) as { code: string; status: number; message: string };
  expect(body.status).toBe(response.status);
  expect(typeof body.message).toBe('string');
  return body;
}

describe('gateway routing', () => {
  it('when a client lists, creates and fetches pets, then each operation reaches the pets-service', async () => {
    const created = await fetch(`${url}/v1/pets`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', categoryId: 3 }),
    });
    expect(created.status).toBe(201);
    const pet = (await created.json()) as { id: number };
    expect(created.headers.get('location')).toBe(`/v1/pets/${pet.id}`);

    const fetched = await fetch(`${url}/v1/pets/${pet.id}`, { headers: auth });
    expect(fetched.status).toBe(200);
    expect(await fetched.json()).toEqual({ id: pet.id, name: 'Rex', categoryId: 3, status: 'available' });

    const listed = await fetch(`${url}/v1/pets?status=available`, { headers: auth });
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual(expect.arrayContaining([expect.objectContaining({ id: pet.id })]));
  });

  it('when more pets exist than a page holds, then the Link header is a relative reference that leads to the next page', async () => {
    for (let i = 0; i < 3; i += 1) {
      await fetch(`${url}/v1/pets`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `p${i}`, categoryId: 1 }),
      });
    }
    const page = await fetch(`${url}/v1/pets?limit=1`, { headers: { ...auth, host: 'evil.example', 'x-forwarded-host': 'evil.example' } });
    const link = page.headers.get('link');
    expect(link).toMatch(/^<\/v1\/pets\?limit=1&cursor=[^>]+>; rel="next"$/);
    const next = await fetch(new URL(/<([^>]+)>/.exec(link!)![1]!, url), { headers: auth });
    expect(next.status).toBe(200);
  });

  it('when the store section is called with a key, then 501 not_implemented', async () => {
    const response = await fetch(`${url}/v1/store/orders`, { headers: auth });
    expect(response.status).toBe(501);
    expect((await errorOf(response)).code).toBe('not_implemented');
  });

  it('when the store section is called without a key, then authentication comes first: 401', async () => {
    expect((await fetch(`${url}/v1/store/orders`)).status).toBe(401);
  });

  it('when the path is unknown, then 404 not_found', async () => {
    for (const path of ['/v1/nope', '/v1/pets/1/extra', '/v2/pets', '/']) {
      const response = await fetch(`${url}${path}`, { headers: auth });
      expect(response.status).toBe(404);
      expect((await errorOf(response)).code).toBe('not_found');
    }
  });

  it('when the method is wrong on a known path, then 405 with Allow', async () => {
    const del = await fetch(`${url}/v1/pets`, { method: 'DELETE', headers: auth });
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('GET, HEAD, POST');
    expect((await errorOf(del)).code).toBe('method_not_allowed');

    const put = await fetch(`${url}/v1/pets/1`, { method: 'PUT', headers: auth });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD');
  });

  it('when getPet answers anything, gateway errors included, then it carries the deprecation headers', async () => {
    for (const [path, headers, status] of [
      ['/v1/pets/1', auth, 200],
      ['/v1/pets/999999', auth, 404],
      ['/v1/pets/abc', auth, 400],
      ['/v1/pets/%E0', auth, 400],
      ['/v1/pets/1', {}, 401],
    ] as const) {
      const response = await fetch(`${url}${path}`, { headers });
      expect(response.status).toBe(status);
      expect(response.headers.get('deprecation')).toMatch(/^@\d+$/);
      expect(response.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
      expect(response.headers.get('link')).toBe('</v1/pets>; rel="successor-version"');
    }
  });

  it('when the client sends a usable X-Request-Id, then it is echoed; otherwise a new one is made', async () => {
    const kept = await fetch(`${url}/v1/pets`, { headers: { ...auth, 'x-request-id': 'trace-123:abc' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-123:abc');
    const replaced = await fetch(`${url}/v1/pets`, { headers: { ...auth, 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('when the interface description is fetched without a key, then it is the OpenAPI 3.1 document', async () => {
    const response = await fetch(`${url}/v1/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ratelimit-limit')).not.toBeNull();
    const document = (await response.json()) as typeof openApiDocument;
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.0.0');
    expect(document.paths['/pets/{petId}'].get.deprecated).toBe(true);
    expect(document.components.schemas.Error.properties.code.enum).toEqual(ERROR_CODES);
  });

  it('when the interface description is asked with another method, then 405 in the Error shape with Allow, after the rate limit', async () => {
    const response = await fetch(`${url}/v1/openapi.json`, { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(response.headers.get('x-ratelimit-limit')).not.toBeNull();
    expect(await response.json()).toEqual({ code: 'method_not_allowed', message: 'POST is not allowed on /v1/openapi.json; use GET, HEAD.', status: 405 });
  });

  it('when /docs is opened, then a human-readable page is served', async () => {
    const response = await fetch(`${url}/docs/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(await response.text()).toMatch(/swagger/i);
  });

  it('when the version or a path segment changes case, then it is not the API: 404', async () => {
    for (const path of ['/V1/pets', '/v1/PETS']) expect((await fetch(`${url}${path}`, { headers: auth })).status).toBe(404);
  });

  it('when two Authorization headers are sent, then 401: the gateway does not pick one', async () => {
    const { connect } = await import('node:net');
    const { port } = new URL(url);
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('utf8')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      socket.write(`GET /v1/pets HTTP/1.1\r\nHost: localhost\r\n${auth.authorization.replace(/^/, 'Authorization: ')}\r\nAuthorization: Bearer junk\r\nConnection: close\r\n\r\n`);
    });
    expect(reply).toMatch(/^HTTP\/1\.1 401 /);
  });

  it('when the headers are too large for the HTTP parser, then the answer is still an Error with a request id', async () => {
    const response = await fetch(`${url}/v1/pets`, { headers: { ...auth, 'x-big': 'x'.repeat(20_000) } });
    expect(response.status).toBe(431);
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await response.json()).toEqual({ code: 'request_header_fields_too_large', message: expect.stringContaining('16 KiB'), status: 431 });
  });

  it('when the admin API is called on the public port, then it is not there', async () => {
    const response = await fetch(`${url}/admin/plans`, { headers: { authorization: 'Bearer whatever' } });
    expect(response.status).toBe(404);
  });
});

describe('request bodies through the gateway', () => {
  const post = (body: string, contentType = 'application/json') =>
    fetch(`${url}/v1/pets`, { method: 'POST', headers: { ...auth, 'content-type': contentType }, body });

  it('when a body is over 16 KiB, then 413 payload_too_large', async () => {
    const response = await post(JSON.stringify({ name: 'x'.repeat(17 * 1024), categoryId: 1 }));
    expect(response.status).toBe(413);
    expect(((await response.json()) as { code: string }).code).toBe('payload_too_large');
  });

  it('when the pets-service refuses a body, then its Error passes through unchanged', async () => {
    expect(((await (await post('{"name":')).json()) as { code: string }).code).toBe('malformed_json');
    expect(((await (await post('{"name":"a"}', 'text/plain')).json()) as { code: string }).code).toBe('unsupported_media_type');
    const invalid = await post('{"name":"Rex","categoryId":"1"}');
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toEqual({ code: 'invalid_body', message: 'categoryId must be an integer.', status: 400 });
  });
});
