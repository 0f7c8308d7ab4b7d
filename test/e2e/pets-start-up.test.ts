import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { SECRET, gatewayToken, tempDir } from '../../pets-service/test/support';
import { freePort } from '../helpers/ports';
import { ADMIN_DATABASE_URL, createTestDatabase, describeIfPostgres } from '../helpers/postgres';
import { COMPILED, ServiceProcess } from '../helpers/processes';
import { TcpProxy } from '../helpers/tcp-proxy';

/**
 * The compiled pets-service refusing a bad start and riding out its database's absence as a process
 * (its settings and 503s in process: pets-service/test/config.test.ts, database-unavailable.test.ts).
 */
const server = (() => {
  const url = new URL(ADMIN_DATABASE_URL);
  return { host: url.hostname, port: Number(url.port || 5432) };
})();

describe('a bad setting at start-up', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('when the compiled service gets a bad PETS_PORT, then it refuses to start with exit code 1 naming the variable', async () => {
    const service = ServiceProcess.spawn(COMPILED.pets, {
      PETS_PORT: '70000',
      PETS_DB_PATH: path.join(dir, 'pets.db'),
      INTERNAL_JWT_SECRET: SECRET,
    });
    expect(await service.waitForExit()).toBe(1);
    expect(service.output).toMatch(/pets-service: refusing to start.*\n.*PETS_PORT must be an integer from 0 to 65535, got "70000"/);
    expect(existsSync(path.join(dir, 'pets.db'))).toBe(false);
  });
});

describeIfPostgres()('PostgreSQL unavailable, in the compiled service', () => {
  let proxy: TcpProxy;
  let service: ServiceProcess | undefined;
  afterEach(async () => {
    await service?.stop('SIGKILL');
    service = undefined;
    await proxy?.stop();
  });

  it('when the database goes away and comes back, then the process answers 503 meanwhile, stays up, and serves again', async () => {
    const database = await createTestDatabase('unavailable');
    try {
      proxy = await TcpProxy.start(server);
      const port = await freePort();
      service = ServiceProcess.spawn(COMPILED.pets, {
        PETS_PORT: String(port),
        DATABASE_URL: proxy.urlThrough(database.url),
        DATABASE_CONNECT_TIMEOUT_MS: '500',
        INTERNAL_JWT_SECRET: SECRET,
      });
      const base = `http://127.0.0.1:${port}`;
      await service.ready(`${base}/healthz`);
      const headers = { authorization: `Bearer ${gatewayToken()}` };
      expect((await fetch(`${base}/pets`, { headers })).status).toBe(200);

      await proxy.refuse();
      const refused = await fetch(`${base}/pets`, { headers });
      expect({ status: refused.status, retryAfter: refused.headers.get('retry-after'), code: ((await refused.json()) as { code: string }).code }).toEqual({
        status: 503,
        retryAfter: '1',
        code: 'service_unavailable',
      });

      await proxy.accept();
      expect((await fetch(`${base}/pets`, { headers })).status).toBe(200);
      expect(service.exited).toBe(false);
      expect(service.output).toMatch(/database unavailable: answered 503/);
    } finally {
      await service?.stop('SIGKILL');
      await database.drop();
    }
  });
});

describe('an unreachable DATABASE_URL at start-up', () => {
  it('when nothing listens at the address, then the compiled service exits 1 at once, not after its connect timeout, naming the database without its password', async () => {
    const closedPort = await freePort();
    const started = Date.now();
    // The longest connect timeout there is: a refused connection must end start-up without waiting
    // for it. (A bound of a few seconds read how busy the machine was: 7.8 s in two suites side by side.)
    const service = ServiceProcess.spawn(COMPILED.pets, {
      PETS_PORT: String(await freePort()),
      DATABASE_URL: `postgres://pets:hunter2-secret@127.0.0.1:${closedPort}/pets`,
      DATABASE_CONNECT_TIMEOUT_MS: '60000',
      INTERNAL_JWT_SECRET: SECRET,
    });
    expect(await service.waitForExit()).toBe(1);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(service.output).toMatch(/pets-service cannot open its database/);
    expect(service.output).toContain(`postgres://pets:***@127.0.0.1:${closedPort}/pets`);
    expect(service.output).not.toContain('hunter2-secret');
  }, 90_000);
});
