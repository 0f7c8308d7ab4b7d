import { Client } from 'pg';
import request from 'supertest';
import { waitFor } from '../../test/helpers/ports';
import { ADMIN_DATABASE_URL, describeIfPostgres } from '../../test/helpers/postgres';
import { TcpProxy } from '../../test/helpers/tcp-proxy';
import { startTestService, type TestPetsService } from './support';

/**
 * A PostgreSQL that is saturated, slow, unreachable or failing is answered 503 service_unavailable
 * with Retry-After, promptly: never a 500, never a request left hanging. Each case is provoked for
 * real: a table lock held by another connection, a TCP proxy that refuses, resets or stops passing
 * bytes, the server ending connections.
 */
const server = (() => {
  const url = new URL(ADMIN_DATABASE_URL);
  return { host: url.hostname, port: Number(url.port || 5432) };
})();

/** Generous: the point is "answered, and soon", not a speed target (those are in `npm run bench`). */
const SLACK_MS = 1_500;

function expectUnavailable(res: request.Response): void {
  expect({ status: res.status, body: res.body, retryAfter: res.headers['retry-after'] }).toEqual({
    status: 503,
    body: { code: 'service_unavailable', status: 503, message: expect.any(String) },
    retryAfter: '1',
  });
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ connectionString: url });
  await client.connect();
  return client;
}

describeIfPostgres()('PostgreSQL unavailable', () => {
  let proxy: TcpProxy;
  let pets: TestPetsService | undefined;
  const others: Client[] = [];

  beforeEach(async () => {
    proxy = await TcpProxy.start(server);
  });
  afterEach(async () => {
    await Promise.all(others.splice(0).map((client) => client.end().catch(() => undefined)));
    proxy.thaw();
    await pets?.close();
    pets = undefined;
    await proxy.stop();
  });

  async function start(postgres: { poolSize?: number; connectTimeoutMs?: number; statementTimeoutMs?: number }): Promise<TestPetsService> {
    pets = await startTestService({ engine: 'postgres', postgres: { via: proxy, ...postgres } });
    return pets;
  }

  /** Another connection, straight to the server, that holds an exclusive lock on the pets table until it rolls back. */
  async function lockPetsTable(service: TestPetsService): Promise<Client> {
    if (service.direct.engine !== 'postgres') throw new Error('a PostgreSQL test');
    const holder = await connect(service.direct.url);
    others.push(holder);
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE pets IN ACCESS EXCLUSIVE MODE');
    return holder;
  }

  /** Runs SQL on a connection of its own, straight to the service's database. */
  async function sql(service: TestPetsService, text: string): Promise<{ n: string }[]> {
    if (service.direct.engine !== 'postgres') throw new Error('a PostgreSQL test');
    const client = await connect(service.direct.url);
    try {
      return (await client.query<{ n: string }>(text)).rows;
    } finally {
      await client.end();
    }
  }

  const waitingOnLock = (service: TestPetsService) =>
    waitFor(
      async () =>
        Number(
          (await sql(service, "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'pets-service' AND wait_event_type = 'Lock'"))[0]?.n,
        ) > 0,
      5_000,
      'a request of the service waiting on the lock',
    );

  const list = (service: TestPetsService) => request(service.app).get('/pets').set('Authorization', service.auth);
  const create = (service: TestPetsService) => request(service.app).post('/pets').set('Authorization', service.auth).send({ name: 'Rex', categoryId: 1 });
  /** Sends the request now (a supertest request only goes out once awaited) and answers later. */
  const sent = (test: request.Test): Promise<request.Response> => test.then((res) => res);

  it('when every pooled connection is busy past the connect timeout, then 503 at that timeout; the busy request still completes', async () => {
    const service = await start({ poolSize: 1, connectTimeoutMs: 300, statementTimeoutMs: 5_000 });
    const holder = await lockPetsTable(service);
    const occupying = sent(list(service));
    await waitingOnLock(service);

    const started = Date.now();
    expectUnavailable(await list(service));
    expect(Date.now() - started).toBeLessThan(300 + SLACK_MS);

    await holder.query('ROLLBACK');
    expect((await occupying).status).toBe(200);
    expect((await list(service)).status).toBe(200);
  });

  it('when a statement runs past the statement timeout, then 503 and nothing is stored; afterwards creates succeed', async () => {
    const service = await start({ statementTimeoutMs: 300 });
    const holder = await lockPetsTable(service);
    const started = Date.now();
    expectUnavailable(await create(service));
    expect(Date.now() - started).toBeLessThan(300 + SLACK_MS);
    await holder.query('ROLLBACK');

    expect(await service.countPets()).toBe(0);
    expect((await create(service)).status).toBe(201);
  });

  it('when the server refuses connections, then 503 at once; when it is back, the service recovers by itself', async () => {
    const service = await start({ connectTimeoutMs: 500 });
    expect((await list(service)).status).toBe(200);

    await proxy.refuse();
    for (let i = 0; i < 3; i += 1) {
      const started = Date.now();
      expectUnavailable(await create(service));
      expect(Date.now() - started).toBeLessThan(500 + SLACK_MS);
    }

    await proxy.accept();
    expect((await list(service)).status).toBe(200);
    expect((await create(service)).status).toBe(201);
  });

  it('when the connection is reset in the middle of a statement, then 503; the next request gets a new connection', async () => {
    const service = await start({});
    const holder = await lockPetsTable(service);
    const cut = sent(list(service));
    await waitingOnLock(service);
    proxy.reset();
    expectUnavailable(await cut);

    await holder.query('ROLLBACK');
    expect((await list(service)).status).toBe(200);
  });

  it('when the server stops answering altogether, then 503 after the statement timeout and its margin, and new connections time out too', async () => {
    const service = await start({ poolSize: 1, connectTimeoutMs: 300, statementTimeoutMs: 300 });
    expect((await list(service)).status).toBe(200);
    proxy.freeze();

    // The pooled connection is open but silent: the client-side answer deadline ends the wait.
    let started = Date.now();
    expectUnavailable(await list(service));
    expect(Date.now() - started).toBeLessThan(300 + 1_000 + SLACK_MS);
    // That connection was discarded; a new one never completes its start-up.
    started = Date.now();
    expectUnavailable(await list(service));
    expect(Date.now() - started).toBeLessThan(300 + SLACK_MS);

    proxy.thaw();
    expect((await list(service)).status).toBe(200);
  });

  it('when the server ends the service\'s connections (a restart, an administrator), then a statement in flight gets 503 and idle ones are replaced without a crash', async () => {
    const service = await start({});
    await Promise.all([list(service), list(service), list(service)].map(sent));
    const terminate = () => sql(service, "SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'pets-service'");

    // Idle connections: the pool hears of their end and drops them; the next request opens a fresh one.
    expect(Number((await terminate())[0]?.n)).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await list(service)).status).toBe(200);

    const holder = await lockPetsTable(service);
    const inFlight = sent(list(service));
    await waitingOnLock(service);
    await terminate();
    expectUnavailable(await inFlight);
    await holder.query('ROLLBACK');
    expect((await list(service)).status).toBe(200);
  });
});
