import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { ConfigError } from '../shared/src/env';
import { loadGatewayConfig } from '../gateway/src/config';
import { loadPetsConfig } from '../pets-service/src/config';
import { replayDockerfile, type ReplayedImage } from './helpers/image-build';
import { ROOT, ServiceProcess, spawnOnFreePorts } from './helpers/processes';
import { TEST_ADMIN_TOKEN, TEST_SECRET, createAccountWithKey } from './helpers/system';

/**
 * The Docker image and docker-compose.yml, checked without a Docker engine (there is none on the
 * project's machines): the image's build is replayed from exactly the files the Dockerfile copies
 * (test/helpers/image-build.ts), and the services are started from what the image would hold.
 * A Dockerfile that forgets a file the build needs, or a compose file naming a command the image
 * lacks or leaving out a variable production requires, fails here.
 */
jest.setTimeout(240_000);

const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, { build?: unknown; image?: string; command?: string[]; environment?: Record<string, string> }>;
};
/** The services built from this repository's Dockerfile (the others are stock images: Redis, PostgreSQL). */
const builtServices = Object.entries(compose.services).filter(([, service]) => service.build !== undefined);

/** How each command of the image reads its settings: the same function its main.ts calls. */
const SETTINGS_OF_COMMAND: Record<string, (env: NodeJS.ProcessEnv) => unknown> = {
  'dist/gateway/src/main.js': loadGatewayConfig,
  'dist/pets-service/src/main.js': loadPetsConfig,
};

let workspace: string;
let image: ReplayedImage;

beforeAll(() => {
  workspace = mkdtempSync(path.join(os.tmpdir(), 'image-build-'));
  image = replayDockerfile(ROOT, workspace, path.join(ROOT, 'node_modules'));
}, 240_000);
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

describe('the Docker image, built from exactly what the Dockerfile copies', () => {
  it('when the copied files are compiled with the tsconfig the Dockerfile names, then tsc succeeds', () => {
    expect(image.compilations.map(({ tsconfig }) => tsconfig)).toHaveLength(1);
    for (const { tsconfig, status, output } of image.compilations) expect({ tsconfig, status, output }).toEqual({ tsconfig, status: 0, output: '' });
    expect(image.command).toEqual(['node', 'dist/gateway/src/main.js']);
    expect(existsSync(path.join(image.imageDir, image.command[1]!))).toBe(true);
  });

  it('when the image holds the build, then neither tests, the bench nor its tools are in it', () => {
    const dist = path.join(image.imageDir, 'dist');
    expect(readdirSync(dist).sort()).toEqual(['client', 'gateway', 'pets-service', 'scripts', 'shared']);
    // Of the client library, only the Link header parser the CLI and the console share with it.
    expect(filesUnder(path.join(dist, 'client')).map((file) => path.relative(dist, file))).toEqual(['client/src/link-header.js', 'client/src/link-header.js.map']);
    expect(filesUnder(dist).filter((file) => /\.test\.js$|[/\\]test[/\\]/.test(file))).toEqual([]);
  });

  it('when the built code requires a package, then it is a production dependency (the image prunes the others)', () => {
    expect(image.prunedDevDependencies).toBe(true);
    const { dependencies } = JSON.parse(readFileSync(path.join(image.imageDir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const required = new Set<string>();
    for (const file of filesUnder(path.join(image.imageDir, 'dist')).filter((name) => name.endsWith('.js'))) {
      for (const [, specifier = ''] of readFileSync(file, 'utf8').matchAll(/require\("([^".][^"]*)"\)/g)) {
        const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
        if (!specifier.startsWith('node:') && !builtinModules.includes(name)) required.add(name);
      }
    }
    expect(required.size).toBeGreaterThan(5);
    expect([...required].filter((name) => dependencies[name] === undefined)).toEqual([]);
  });

  it('when the image\'s command and the pets-service start from what the image holds, in production, then both serve: a pet is created, the pages and their assets load', async () => {
    const pets = builtServices.find(([name]) => name === 'pets')?.[1];
    expect(pets?.command).toEqual(['node', 'dist/pets-service/src/main.js']);
    const common = { ...image.env, INTERNAL_JWT_SECRET: TEST_SECRET, LOG_LEVEL: 'warn' };
    const started: ServiceProcess[] = [];
    /** A command of the image, run from the image's folder (its WORKDIR), as the container would. */
    const startFromImage = (file: string, env: Record<string, string>, readyUrl: string) => {
      const child = ServiceProcess.spawn(path.join(image.imageDir, file), { ...common, ...env }, [], { cwd: image.imageDir });
      started.push(child);
      return child.ready(readyUrl);
    };
    try {
      const petsPort = await spawnOnFreePorts(1, async ([petsPort = 0]) => {
        const env = { PETS_PORT: String(petsPort), PETS_DB_PATH: path.join(workspace, 'data', 'pets.db') };
        await startFromImage(pets!.command![1]!, env, `http://127.0.0.1:${petsPort}/healthz`);
        return petsPort;
      });
      const { port, adminPort, gateway } = await spawnOnFreePorts(2, async ([port = 0, adminPort = 0]) => {
        const env = { PORT: String(port), ADMIN_PORT: String(adminPort), ADMIN_TOKEN: TEST_ADMIN_TOKEN, PETS_URL: `http://127.0.0.1:${petsPort}` };
        const gateway = await startFromImage(image.command[1]!, env, `http://127.0.0.1:${port}/healthz`);
        await gateway.ready(`http://127.0.0.1:${adminPort}/admin/plans`);
        return { port, adminPort, gateway };
      });
      expect(gateway.output).not.toMatch(/demo API key/); // production: nothing generated

      const { key } = await createAccountWithKey(`http://127.0.0.1:${adminPort}`, { plan: 'pro' });
      const created = await fetch(`http://127.0.0.1:${port}/v1/pets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Imaged', categoryId: 1 }),
      });
      expect(created.status).toBe(201);

      for (const url of [
        `http://127.0.0.1:${port}/docs/`,
        `http://127.0.0.1:${port}/docs/swagger-ui.css`,
        `http://127.0.0.1:${port}/portal/login`,
        `http://127.0.0.1:${port}/portal/assets/portal.js`,
        `http://127.0.0.1:${port}/portal/assets/portal.css`,
        `http://127.0.0.1:${adminPort}/console`,
        `http://127.0.0.1:${adminPort}/console/console.js`,
        `http://127.0.0.1:${adminPort}/console/console.css`,
      ]) {
        expect({ url, status: (await fetch(url)).status }).toEqual({ url, status: 200 });
      }
    } finally {
      for (const child of started.reverse()) await child.stop();
    }
  });
});

describe('docker-compose.yml', () => {
  it('when a service is built from this repository, then its command is a file of the image', () => {
    expect(builtServices.map(([name]) => name).sort()).toEqual(['gateway', 'gateway-a', 'gateway-b', 'pets', 'pets-a', 'pets-b']);
    for (const [name, service] of builtServices) {
      const [program, file] = service.command ?? image.command;
      expect({ name, program, inImage: existsSync(path.join(image.imageDir, file ?? '')) }).toEqual({ name, program: 'node', inImage: true });
      expect({ name, knownCommand: file! in SETTINGS_OF_COMMAND }).toEqual({ name, knownCommand: true });
    }
  });

  it('when each built service reads its environment as compose gives it, then the settings load in production: every variable it requires is named', () => {
    for (const [name, service] of builtServices) {
      const env = { ...image.env, ...interpolate(service.environment ?? {}) };
      expect({ name, NODE_ENV: env.NODE_ENV }).toEqual({ name, NODE_ENV: 'production' });
      // A container path would be created on this machine: the same file under the workspace instead.
      if (env.PETS_DB_PATH) env.PETS_DB_PATH = path.join(workspace, 'compose', name, env.PETS_DB_PATH);
      const [, file] = service.command ?? image.command;
      let problems: string[] = [];
      try {
        SETTINGS_OF_COMMAND[file!]!(env);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        problems = error.problems;
      }
      expect({ name, problems }).toEqual({ name, problems: [] });
    }
  });

  it('when a secret is given to a service, then it comes from the operator\'s environment and compose refuses to start without it', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const [variable, value] of Object.entries(service.environment ?? {})) {
        if (!/TOKEN|SECRET|PASSWORD|^REDIS_URL$|^DATABASE_URL$/.test(variable)) continue;
        const required = /\$\{[A-Z_]+:\?[^}]*\}/.test(value);
        // PostgreSQL's own image refuses an empty POSTGRES_PASSWORD itself (see the file's header).
        const checkedByPostgres = /\$\{POSTGRES_PASSWORD:-\}/.test(value);
        expect({ name, variable, fromEnvironment: required || checkedByPostgres }).toEqual({ name, variable, fromEnvironment: true });
      }
    }
  });
});

/** Compose's `${VAR:?message}`, `${VAR:-default}` and `${VAR}`, with a placeholder for each required one. */
function interpolate(environment: Record<string, string>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(environment)) {
    values[name] = String(value).replace(/\$\{([A-Z_][A-Z0-9_]*)(?::([?-])([^}]*))?\}/g, (_match, variable: string, kind?: string, rest?: string) => {
      if (kind === '?') return `compose-placeholder-${variable.toLowerCase()}-0123456789abcdef`;
      if (kind === '-') return rest ?? '';
      return '';
    });
  }
  return values;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}
