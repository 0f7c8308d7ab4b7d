import path from 'node:path';
import { signServiceToken } from '../../shared/src/internal-token';
import { OtlpReceiver, SPAN_KIND, type ReceivedSpan } from '../../tools/otlp-receiver';
import { waitFor } from '../helpers/ports';
import { createTestDatabase, describeIfPostgres, type TestDatabase } from '../helpers/postgres';
import { COMPILED, ServiceProcess, spawnOnFreePorts } from '../helpers/processes';
import { TEST_SECRET, createAccountWithKey, startSystem, type SystemHandle } from '../helpers/system';

/**
 * Tracing through the real processes (operating contract, "Tracing"): the compiled gateway (on a
 * real Redis) and pets-service (SQLite) export to a real OTLP/HTTP receiver (http/json) on a
 * free port; what a caller's trace holds is read from what arrived there.
 */

const REPORT_LOADED = `--require ${path.join(__dirname, '..', 'helpers', 'report-loaded-modules.js')}`;
const CALLER_SPAN = 'b7ad6b7169203331';

let traceCount = 0;
/** A new caller trace: its id and the `traceparent` that starts it from CALLER_SPAN (sampled). */
function callerTrace(): { traceId: string; traceparent: string } {
  traceCount += 1;
  const traceId = `0af7651916cd43dd8448eb21${traceCount.toString(16).padStart(8, '0')}`;
  return { traceId, traceparent: `00-${traceId}-${CALLER_SPAN}-01` };
}

function serverSpan(spans: ReceivedSpan[], service: string): ReceivedSpan | undefined {
  return spans.find((span) => span.service === service && span.kind === SPAN_KIND.server);
}

/** Whether `span` descends from `ancestor` within `spans` (one trace). */
function descendsFrom(span: ReceivedSpan, ancestor: ReceivedSpan, spans: ReceivedSpan[]): boolean {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  for (let parent = byId.get(span.parentSpanId); parent; parent = byId.get(parent.parentSpanId)) {
    if (parent.spanId === ancestor.spanId) return true;
  }
  return false;
}

/** The JSON lines a process wrote. */
function logLines(process: ServiceProcess): Record<string, unknown>[] {
  return process.output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Modules of the OpenTelemetry SDK (not its API facade) the process had loaded when it exited. */
function loadedSdkModules(process: ServiceProcess): number {
  const match = /opentelemetry-sdk-modules-loaded: (\d+)/.exec(process.output);
  if (!match) throw new Error(`the process did not report its modules:\n${process.output}`);
  return Number(match[1]);
}

describe('tracing on: OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  let receiver: OtlpReceiver;
  let system: SystemHandle;

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    const otel = {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      // Exported within a tenth of a second of ending, so the test waits little.
      OTEL_BSP_SCHEDULE_DELAY: '100',
      LOG_LEVEL: 'info',
      NODE_OPTIONS: REPORT_LOADED,
    };
    system = await startSystem({ redis: true, gatewayEnv: otel, petsEnv: otel });
  });

  afterAll(async () => {
    await system?.stop();
    await receiver?.stop();
  });

  it('when a request carries a traceparent, then the gateway, its Redis call and the pets-service with its SQL statement are spans of that trace, correctly parented and described', async () => {
    const gateway = system.gateways[0]!;
    const { key, accountId, keyId } = await createAccountWithKey(gateway.adminUrl);
    const { traceId, traceparent } = callerTrace();

    const response = await fetch(`${gateway.url}/v1/pets?limit=5`, { headers: { authorization: `Bearer ${key}`, traceparent, tracestate: 'vendor=1' } });
    expect(response.status).toBe(200);

    let spans: ReceivedSpan[] = [];
    await waitFor(() => {
      spans = receiver.trace(traceId);
      return spans.some((span) => span.attributes['db.system.name'] === 'sqlite') && serverSpan(spans, 'gateway') !== undefined;
    }, 15_000, 'the spans of both services');

    const gatewaySpan = serverSpan(spans, 'gateway')!;
    expect(gatewaySpan.parentSpanId).toBe(CALLER_SPAN);
    expect(gatewaySpan.traceState).toBe('vendor=1');
    expect(gatewaySpan.name).toBe('GET /v1/pets');
    expect(gatewaySpan.attributes).toMatchObject({
      'http.request.method': 'GET',
      'url.path': '/v1/pets',
      'http.route': '/v1/pets',
      'http.response.status_code': 200,
      'animal_store.account_id': accountId,
      'animal_store.key_id': keyId,
      'animal_store.plan': 'free',
      'animal_store.rate_limit.decision': 'accepted',
    });

    const decision = spans.find((span) => span.name === 'rate-limit')!;
    expect(decision.parentSpanId).toBe(gatewaySpan.spanId);
    expect(decision.attributes['animal_store.rate_limit.decision']).toBe('accepted');
    const redisCall = spans.find((span) => span.parentSpanId === decision.spanId);
    expect(redisCall).toMatchObject({ service: 'gateway', kind: SPAN_KIND.client });
    expect(redisCall!.attributes['db.system.name'] ?? redisCall!.attributes['db.system']).toBe('redis');

    const petsSpan = serverSpan(spans, 'pets-service')!;
    expect(descendsFrom(petsSpan, gatewaySpan, spans)).toBe(true);
    // The caller's tracestate went upstream with the traceparent.
    expect(petsSpan.traceState).toBe('vendor=1');
    expect(petsSpan.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.route': '/pets', 'http.response.status_code': 200 });

    const statement = spans.find((span) => span.attributes['db.system.name'] === 'sqlite')!;
    expect(statement).toMatchObject({ service: 'pets-service', kind: SPAN_KIND.client, name: 'SELECT pets' });
    expect(statement.attributes['db.query.text']).toMatch(/^SELECT .* FROM pets WHERE id > \? ORDER BY id LIMIT \?$/);
    expect(descendsFrom(statement, petsSpan, spans)).toBe(true);

    // Every line either service wrote while handling it carries its trace id.
    await waitFor(
      () => logLines(system.pets).some((line) => line.trace_id === traceId && line.url === '/pets?limit=5') && logLines(gateway.process).some((line) => line.trace_id === traceId),
      15_000,
      'the access lines',
    );
    const gatewayLine = logLines(gateway.process).find((line) => line.trace_id === traceId)!;
    expect(gatewayLine).toMatchObject({ url: '/v1/pets?limit=5', status: 200, span_id: gatewaySpan.spanId });
  });

  it('when requests are refused (429 over the limit, 401 without a key), then each has its server span with its decision', async () => {
    const gateway = system.gateways[0]!;
    const { key } = await createAccountWithKey(gateway.adminUrl, { plan: 'free', perMinute: 2, perDay: 100 });
    const accepted = callerTrace();
    const limited = callerTrace();
    const anonymous = callerTrace();

    // Two accepted, the third limited (one rejection: below the ban threshold, the per-minute limit).
    expect((await fetch(`${gateway.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    expect((await fetch(`${gateway.url}/v1/pets`, { headers: { authorization: `Bearer ${key}`, traceparent: accepted.traceparent } })).status).toBe(200);
    expect((await fetch(`${gateway.url}/v1/pets`, { headers: { authorization: `Bearer ${key}`, traceparent: limited.traceparent } })).status).toBe(429);
    expect((await fetch(`${gateway.url}/v1/pets`, { headers: { traceparent: anonymous.traceparent } })).status).toBe(401);

    await waitFor(() => serverSpan(receiver.trace(limited.traceId), 'gateway') !== undefined && serverSpan(receiver.trace(anonymous.traceId), 'gateway') !== undefined, 15_000, 'the refusals’ spans');
    expect(serverSpan(receiver.trace(limited.traceId), 'gateway')!.attributes).toMatchObject({ 'http.response.status_code': 429, 'animal_store.rate_limit.decision': 'limited' });
    const anonymousSpan = serverSpan(receiver.trace(anonymous.traceId), 'gateway')!;
    expect(anonymousSpan.attributes).toMatchObject({ 'http.response.status_code': 401, 'animal_store.rate_limit.decision': 'anonymous' });
    expect(anonymousSpan.attributes['animal_store.account_id']).toBeUndefined();
    // A refused request never reaches the pets-service.
    expect(serverSpan(receiver.trace(limited.traceId), 'pets-service')).toBeUndefined();
  });

  it('when a client sends its key in the query string and a cookie, then no span of either service carries the key, the Authorization value or the cookie', async () => {
    const gateway = system.gateways[0]!;
    const { key } = await createAccountWithKey(gateway.adminUrl);
    const { traceId, traceparent } = callerTrace();

    await fetch(`${gateway.url}/v1/pets?limit=2&api_key=${key}&key=${key}`, {
      headers: { authorization: `Bearer ${key}`, cookie: 'portal_session=cookie-secret-value', traceparent },
    });
    await waitFor(() => serverSpan(receiver.trace(traceId), 'pets-service') !== undefined && serverSpan(receiver.trace(traceId), 'gateway') !== undefined, 15_000, 'the spans');

    const gatewaySpan = serverSpan(receiver.trace(traceId), 'gateway')!;
    expect(gatewaySpan.attributes['url.query']).toBe('limit=2&api_key=[redacted]&key=[redacted]');
    const everything = JSON.stringify(receiver.spans);
    expect(everything).not.toContain(key.slice('ask_live_'.length));
    expect(everything).not.toContain('cookie-secret-value');
    expect(everything.toLowerCase()).not.toContain('bearer');
  });

  it('when tracing is on, then the services load the SDK (the check the test below relies on)', async () => {
    await system.gateways[0]!.process.stop();
    await system.pets.stop();
    expect(loadedSdkModules(system.gateways[0]!.process)).toBeGreaterThan(0);
    expect(loadedSdkModules(system.pets)).toBeGreaterThan(0);
  });
});

const describePostgres = describeIfPostgres();

describePostgres('tracing on, the pets-service on PostgreSQL', () => {
  let receiver: OtlpReceiver;
  let database: TestDatabase;
  let pets: { process: ServiceProcess; url: string };

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    database = await createTestDatabase('tracing');
    pets = await spawnOnFreePorts(1, async ([port = 0]) => {
      const child = ServiceProcess.spawn(COMPILED.pets, {
        PETS_PORT: String(port),
        DATABASE_URL: database.url,
        INTERNAL_JWT_SECRET: TEST_SECRET,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      });
      const url = `http://127.0.0.1:${port}`;
      await child.ready(`${url}/healthz`);
      return { process: child, url };
    });
  });

  afterAll(async () => {
    await pets?.process.stop();
    await database?.drop();
    await receiver?.stop();
  });

  it('when a create carries a traceparent, then its statements are spans of that trace, with their text and never the values', async () => {
    const { traceId, traceparent } = callerTrace();
    const response = await fetch(`${pets.url}/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${signServiceToken('tracing-test', TEST_SECRET)}`, 'content-type': 'application/json', traceparent },
      body: JSON.stringify({ name: 'Confidential Rex', categoryId: 1 }),
    });
    expect(response.status).toBe(201);

    let spans: ReceivedSpan[] = [];
    await waitFor(() => {
      spans = receiver.trace(traceId);
      return spans.some((span) => String(span.attributes['db.query.text']).includes('INSERT INTO pets'));
    }, 15_000, 'the INSERT span');
    const server = serverSpan(spans, 'pets-service')!;
    expect(server.parentSpanId).toBe(CALLER_SPAN);
    const insert = spans.find((span) => String(span.attributes['db.query.text']).includes('INSERT INTO pets'))!;
    expect(insert).toMatchObject({ kind: SPAN_KIND.client });
    expect(insert.attributes['db.system.name']).toBe('postgresql');
    expect(insert.attributes['db.query.text']).toMatch(/\$1/);
    expect(descendsFrom(insert, server, spans)).toBe(true);
    expect(JSON.stringify(spans)).not.toContain('Confidential Rex');
  });
});

describe('tracing off: no OTLP endpoint', () => {
  it('when a request has been served, then neither service has loaded any module of the OpenTelemetry SDK', async () => {
    const system = await startSystem({ gatewayEnv: { NODE_OPTIONS: REPORT_LOADED }, petsEnv: { NODE_OPTIONS: REPORT_LOADED } });
    try {
      const gateway = system.gateways[0]!;
      const { key } = await createAccountWithKey(gateway.adminUrl);
      expect((await fetch(`${gateway.url}/v1/pets`, { headers: { authorization: `Bearer ${key}`, traceparent: callerTrace().traceparent } })).status).toBe(200);
      await gateway.process.stop();
      await system.pets.stop();
      expect(loadedSdkModules(gateway.process)).toBe(0);
      expect(loadedSdkModules(system.pets)).toBe(0);
    } finally {
      await system.stop();
    }
  });
});
