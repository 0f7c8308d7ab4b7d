import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../shared/src/env';
import { COMPILED, ServiceProcess } from '../../test/helpers/processes';
import { loadPetsConfig } from '../src/config';
import { SECRET, tempDir } from './support';

let dir: string;

beforeEach(() => {
  dir = tempDir();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadPetsConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected the configuration to be refused');
}

describe('pets-service configuration', () => {
  it('when only the secret and the file are given, then the defaults apply and the result is frozen', () => {
    const dbPath = path.join(dir, 'nested', 'folder', 'pets.db');
    const config = loadPetsConfig({ INTERNAL_JWT_SECRET: SECRET, PETS_DB_PATH: dbPath });
    expect(config).toEqual({
      port: 8082,
      host: '127.0.0.1',
      dbPath,
      internalJwtSecret: SECRET,
      internalJwtSecretGenerated: false,
      logLevel: 'info',
      nodeEnv: 'development',
      production: false,
      publicBaseUrl: undefined,
      apiEnvironment: 'production',
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(existsSync(path.dirname(dbPath))).toBe(true);
  });

  it('when PETS_DB_PATH is not set, then the file is data/pets.db under the working folder, folder created', () => {
    const previous = process.cwd();
    process.chdir(dir);
    try {
      const config = loadPetsConfig({ INTERNAL_JWT_SECRET: SECRET });
      expect(config.dbPath).toBe(path.join(process.cwd(), 'data', 'pets.db'));
      expect(existsSync(path.join(process.cwd(), 'data'))).toBe(true);
    } finally {
      process.chdir(previous);
    }
  });

  it('when every variable is set, then each is used', () => {
    const config = loadPetsConfig({
      PETS_PORT: '9000',
      PETS_HOST: '0.0.0.0',
      PETS_DB_PATH: path.join(dir, 'x.db'),
      INTERNAL_JWT_SECRET: SECRET,
      LOG_LEVEL: 'debug',
    });
    expect(config).toMatchObject({ port: 9000, host: '0.0.0.0', logLevel: 'debug' });
  });

  it('when several variables are wrong, then every one of them is named at once', () => {
    const problems = problemsOf({
      PETS_PORT: 'eighty',
      PETS_HOST: 'not a host!',
      INTERNAL_JWT_SECRET: 'short',
      LOG_LEVEL: 'loud',
      PETS_DB_PATH: path.join(dir, 'pets.db'),
    });
    expect(problems).toHaveLength(4);
    for (const name of ['PETS_PORT', 'PETS_HOST', 'INTERNAL_JWT_SECRET', 'LOG_LEVEL']) {
      expect(problems.some((problem) => problem.startsWith(name))).toBe(true);
    }
  });

  it('when in production without a secret, then the start is refused', () => {
    expect(problemsOf({ NODE_ENV: 'production', PETS_DB_PATH: path.join(dir, 'pets.db') })).toEqual([
      'INTERNAL_JWT_SECRET is required when NODE_ENV=production',
    ]);
  });

  it('when the secret is as short as the gateway refuses, then the pets-service refuses it too (one rule for both)', () => {
    const secret = 'x'.repeat(31);
    expect(problemsOf({ INTERNAL_JWT_SECRET: secret, PETS_DB_PATH: path.join(dir, 'pets.db') })).toEqual([
      'INTERNAL_JWT_SECRET must be at least 32 characters long',
    ]);
    expect(problemsOf({ NODE_ENV: 'Production', INTERNAL_JWT_SECRET: 'y'.repeat(16), PETS_DB_PATH: path.join(dir, 'pets.db') })).toEqual([
      'INTERNAL_JWT_SECRET must be at least 32 characters long',
    ]);
  });

  it('when the database folder cannot be created, then PETS_DB_PATH is named', () => {
    const blocked = path.join(__filename, 'inside-a-file', 'pets.db');
    expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, PETS_DB_PATH: blocked })).toEqual([expect.stringMatching(/^PETS_DB_PATH/)]);
  });

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
