import { waitFor } from '../helpers/ports';
import { createAccountWithKey, startSystem, type GatewayHandle, type SystemHandle } from '../helpers/system';
import { call, expectError, rateLimitOf } from '../helpers/traffic';

/**
 * Production and staging are two deployments of one system, told apart by API_ENVIRONMENT: two
 * gateway processes here, one per environment, in front of one pets-service. Each issues its own
 * keys (ask_live_ / ask_test_) and refuses the other's, saying which environment the key is for.
 */
let system: SystemHandle;
let production: GatewayHandle;
let staging: GatewayHandle;

beforeAll(async () => {
  system = await startSystem();
  production = system.gateways[0]!;
  staging = await system.startGateway({ API_ENVIRONMENT: 'staging' });
});

afterAll(async () => {
  await system?.stop();
});

describe('production and staging deployments (real processes)', () => {
  it('when each deployment creates a key, then production issues ask_live_ and staging ask_test_, and each key works where it was issued', async () => {
    const live = await createAccountWithKey(production.adminUrl);
    const test = await createAccountWithKey(staging.adminUrl);
    expect(live.key).toMatch(/^ask_live_[0-9A-Za-z]{28}$/);
    expect(test.key).toMatch(/^ask_test_[0-9A-Za-z]{28}$/);
    expect((await call(`${production.url}/v1/pets`, { key: live.key })).status).toBe(200);
    expect((await call(`${staging.url}/v1/pets`, { key: test.key })).status).toBe(200);
  });

  it('when a key is sent to the other environment, then 401 unauthorized naming the environment the key belongs to', async () => {
    const live = await createAccountWithKey(production.adminUrl);
    const test = await createAccountWithKey(staging.adminUrl);

    const atStaging = await call(`${staging.url}/v1/pets`, { key: live.key });
    expectError(atStaging, 401, 'unauthorized');
    expect(atStaging.json?.['message']).toBe('This is a production key (ask_live_…); this is the staging API.');
    expect(atStaging.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(rateLimitOf(atStaging).policy).toBe('"minute";q=60;w=60');

    const atProduction = await call(`${production.url}/v1/pets`, { key: test.key });
    expectError(atProduction, 401, 'unauthorized');
    expect(atProduction.json?.['message']).toBe('This is a staging key (ask_test_…); this is the production API.');
  });

  it('when the staging gateway starts in development, then its printed demo key is an ask_test_ key that works there and is refused by production', async () => {
    await waitFor(() => /demo API key ask_test_\w+/.test(staging.process.output), 5_000, 'the demo key line');
    const demo = /demo API key (ask_test_\w+)/.exec(staging.process.output)![1]!;
    expect(staging.process.output).toMatch(/gateway ready \(staging, /);
    expect((await call(`${staging.url}/v1/pets`, { key: demo })).status).toBe(200);
    expect((await call(`${production.url}/v1/pets`, { key: demo })).json?.['message']).toMatch(/^This is a staging key/);
  });
});
