import request from 'supertest';
import type { Gateway } from '../src/gateway';
import { startGateway } from './support/gateway';

/**
 * The document the gateway serves (`/v1/openapi.json`, and inside `/docs`) lists the serving server
 * first, so "Try it out" calls the deployment the reader is on (test/e2e/docs-browser.test.ts clicks it).
 */
describe.each([
  ['without PUBLIC_BASE_URL', {}, '/v1'],
  ['with PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'https://pets.example.org/v1' }, 'https://pets.example.org/v1'],
])('the served interface description, %s', (_case, env: Record<string, string>, first) => {
  let gateway: Gateway;
  beforeAll(async () => {
    gateway = await startGateway(env);
  });
  afterAll(() => gateway.close());

  const expected = [first, 'https://api.animalstore.example/v1', 'https://staging.api.animalstore.example/v1'];

  it(`when /v1/openapi.json is fetched, then the servers are ${first}, production, staging`, async () => {
    const res = await request(gateway.publicApp).get('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect((res.body as { servers: Array<{ url: string }> }).servers.map((server) => server.url)).toEqual(expected);
  });

  it(`when /docs loads its document, then it lists the same servers, ${first} first`, async () => {
    const res = await request(gateway.publicApp).get('/docs/swagger-ui-init.js');
    expect(res.status).toBe(200);
    const options = /"swaggerDoc":\s*(\{[\s\S]*?\}),\s*"customOptions"/.exec(res.text);
    expect(options).not.toBeNull();
    const document = JSON.parse(options![1]!) as { servers: Array<{ url: string }> };
    expect(document.servers.map((server) => server.url)).toEqual(expected);
  });
});
