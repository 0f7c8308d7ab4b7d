import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { COMPILED, ProcessExitedEarly, ServiceProcess, listensOn } from '../helpers/processes';
import { freePort } from '../helpers/ports';

/**
 * The harness's readiness check: a port another server took first must not pass for the service's
 * own (the service then fails with EADDRINUSE and is started again on new ports), or a test talks
 * to the wrong server (Node 24 run: 401s expected, 404s from a pets-service received).
 */
let squatter: Server;
let squattedPort: number;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'process-readiness-'));
  squatter = createServer((_req, res) => res.end('not the service'));
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  squattedPort = (squatter.address() as AddressInfo).port;
});
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  await new Promise((resolve) => squatter.close(resolve));
});

// The ownership check reads /proc (Linux); elsewhere `listensOn` cannot tell and passes, so these
// tests, which are about telling, are skipped there.
const onLinux = existsSync('/proc/net/tcp') ? describe : describe.skip;

onLinux('ServiceProcess.ready', () => {
  it('when another process already answers on the service\'s port, then ready fails with the service\'s EADDRINUSE, not success', async () => {
    const pets = ServiceProcess.spawn(COMPILED.pets, { PETS_PORT: String(squattedPort), PETS_DB_PATH: path.join(dataDir, 'pets.db'), INTERNAL_JWT_SECRET: 'test-internal-secret-0123456789abcdef' });
    try {
      const outcome = await pets.ready(`http://127.0.0.1:${squattedPort}/healthz`).then(
        () => 'ready',
        (error: unknown) => (error instanceof ProcessExitedEarly && /EADDRINUSE/.test(error.output) ? 'EADDRINUSE' : String(error)),
      );
      expect(outcome).toBe('EADDRINUSE');
    } finally {
      pets.stop();
      await pets.waitForExit();
    }
  });

  it('when the service itself listens, then ready succeeds and the socket is found among its own', async () => {
    const port = await freePort();
    const pets = ServiceProcess.spawn(COMPILED.pets, { PETS_PORT: String(port), PETS_DB_PATH: path.join(dataDir, 'pets.db'), INTERNAL_JWT_SECRET: 'test-internal-secret-0123456789abcdef' });
    try {
      await pets.ready(`http://127.0.0.1:${port}/healthz`);
      expect(listensOn(pets.child.pid, port)).toBe(true);
      expect(listensOn(pets.child.pid, squattedPort)).toBe(false);
      expect(listensOn(process.pid, squattedPort)).toBe(true);
    } finally {
      pets.stop();
      await pets.waitForExit();
    }
  });
});
