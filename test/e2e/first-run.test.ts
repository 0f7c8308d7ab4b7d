import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, waitFor } from '../helpers/ports';
import { GATEWAY_NODE_FLAGS } from '../../gateway/src/node-flags';
import { COMPILED, ServiceProcess, descendantCommandLines } from '../helpers/processes';

describe('first run: npm start with nothing configured', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'first-run-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('when started on other ports, then both processes run, a demo key and a curl line are printed, and the key works through the gateway; SIGTERM stops both', async () => {
    const [port, adminPort, petsPort] = [await freePort(), await freePort(), await freePort()];
    // No PETS_URL: the gateway must call the pets-service npm start put on PETS_PORT, not the default 8082.
    const system = ServiceProcess.spawn(COMPILED.start, {
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      PETS_PORT: String(petsPort),
      PETS_DB_PATH: path.join(dir, 'pets.db'),
    });
    try {
      await waitFor(() => /curl .*\/v1\/pets/.test(system.output), 20_000, 'the demo curl line');
      const key = /demo API key (ask_live_\w+)/.exec(system.output)?.[1];
      expect(key).toBeDefined();
      expect(system.output).toContain(`curl -i -H "Authorization: Bearer ${key}" http://localhost:${port}/v1/pets`);
      expect(system.output).toMatch(/REDIS_URL is not set/);
      const adminToken = /export ADMIN_TOKEN=(\S+)/.exec(system.output)?.[1];
      expect(adminToken).toBeDefined();

      const auth = { authorization: `Bearer ${key}` };
      const created = await fetch(`http://localhost:${port}/v1/pets`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
      });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: number };
      expect((await fetch(`http://localhost:${port}/v1/pets/${id}`, { headers: auth })).status).toBe(200);
      const listed = await fetch(`http://localhost:${port}/v1/pets`, { headers: auth });
      expect(listed.headers.get('x-ratelimit-limit')).toBe('60');
      expect(((await listed.json()) as unknown[]).length).toBe(1);

      const plans = await fetch(`http://127.0.0.1:${adminPort}/admin/plans`, { headers: { authorization: `Bearer ${adminToken}` } });
      expect(plans.status).toBe(200);

      // The gateway runs with its Node flags (a larger young generation, gateway/src/node-flags.ts), the pets-service without.
      if (existsSync('/proc')) {
        const commands = descendantCommandLines(system.child.pid!).map((args) => args.slice(1).join(' '));
        expect(commands).toEqual(expect.arrayContaining([[...GATEWAY_NODE_FLAGS, COMPILED.gateway].join(' '), COMPILED.pets]));
      }
    } finally {
      expect(await system.stop('SIGTERM')).toBe(0);
    }
    await expect(fetch(`http://127.0.0.1:${petsPort}/healthz`)).rejects.toThrow();
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });
});

describe('production start without secrets', () => {
  it('when NODE_ENV=production lacks ADMIN_TOKEN and INTERNAL_JWT_SECRET, then the gateway refuses to start naming both', async () => {
    const gateway = ServiceProcess.spawn(COMPILED.gateway, { NODE_ENV: 'production', PORT: String(await freePort()) });
    expect(await gateway.waitForExit()).toBe(1);
    expect(gateway.output).toContain('ADMIN_TOKEN is required when NODE_ENV=production');
    expect(gateway.output).toContain('INTERNAL_JWT_SECRET is required when NODE_ENV=production');
  });

  it('when NODE_ENV=production lacks INTERNAL_JWT_SECRET, then the pets-service refuses to start naming it', async () => {
    const pets = ServiceProcess.spawn(COMPILED.pets, { NODE_ENV: 'production', PETS_PORT: String(await freePort()) });
    expect(await pets.waitForExit()).toBe(1);
    expect(pets.output).toContain('INTERNAL_JWT_SECRET');
  });

  it('when NODE_ENV=production has a guessable INTERNAL_JWT_SECRET (issue 24), then the pets-service refuses to start naming it, without the value', async () => {
    const pets = ServiceProcess.spawn(COMPILED.pets, { NODE_ENV: 'production', PETS_PORT: String(await freePort()), INTERNAL_JWT_SECRET: 'qwertyuiopasdfghjklzxcvbnm123456' });
    expect(await pets.waitForExit()).toBe(1);
    expect(pets.output).toContain('INTERNAL_JWT_SECRET is too easy to guess for production');
    expect(pets.output).toContain('openssl rand -base64 32');
    expect(pets.output).not.toContain('qwertyuiop');
  });

  it.each(['Production', 'PRODUCTION'])('when NODE_ENV=%s, then the gateway starts in production mode: secrets required, no generated token, no demo key', async (nodeEnv) => {
    const refused = ServiceProcess.spawn(COMPILED.gateway, { NODE_ENV: nodeEnv, PORT: String(await freePort()) });
    expect(await refused.waitForExit()).toBe(1);
    expect(refused.output).toContain('ADMIN_TOKEN is required when NODE_ENV=production');

    const [port, adminPort] = [await freePort(), await freePort()];
    const gateway = ServiceProcess.spawn(COMPILED.gateway, {
      NODE_ENV: nodeEnv,
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      // Production refuses what is easy to guess: a random part, as `openssl rand -base64 32` makes one.
      ADMIN_TOKEN: 'a-production-admin-token-Kd8Wq2Zr5Ys1Nv4Xb7',
      INTERNAL_JWT_SECRET: 'q3Vn8R1kXw2Lp9ZcT6yHf0Jd5MbGs4Ae7Ut+Ki/O=',
    });
    try {
      await gateway.ready(`http://127.0.0.1:${port}/healthz`);
      await waitFor(() => /gateway ready/.test(gateway.output), 5_000, 'the start banner');
      expect(gateway.output).not.toMatch(/demo API key|admin token {2}|ask_live_/);
    } finally {
      // The output with the exit code: a stop that fails says why.
      const code = await gateway.stop();
      expect({ code, output: code === 0 ? '' : gateway.output }).toEqual({ code: 0, output: '' });
    }
  });

  it('when NODE_ENV is not a known environment, then both services refuse to start naming it', async () => {
    const gateway = ServiceProcess.spawn(COMPILED.gateway, { NODE_ENV: 'prod', PORT: String(await freePort()), INTERNAL_JWT_SECRET: 'x'.repeat(32) });
    const pets = ServiceProcess.spawn(COMPILED.pets, { NODE_ENV: 'prod', PETS_PORT: String(await freePort()), INTERNAL_JWT_SECRET: 'x'.repeat(32) });
    expect(await gateway.waitForExit()).toBe(1);
    expect(await pets.waitForExit()).toBe(1);
    for (const output of [gateway.output, pets.output]) expect(output).toContain('NODE_ENV must be one of development, test, production (any case), got "prod"');
  });

  it('when a variable is malformed, then the gateway refuses to start naming it', async () => {
    const gateway = ServiceProcess.spawn(COMPILED.gateway, { PORT: 'http', UPSTREAM_TIMEOUT_MS: 'soon', INTERNAL_JWT_SECRET: 'x'.repeat(32) });
    expect(await gateway.waitForExit()).toBe(1);
    expect(gateway.output).toMatch(/PORT must be/);
    expect(gateway.output).toMatch(/UPSTREAM_TIMEOUT_MS must be/);
  });
});
