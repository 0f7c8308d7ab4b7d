import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../shared/src/env';
import { POSTGRES_DEFAULTS, describeDatabase, loadPetsConfig } from '../src/config';
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
      database: { engine: 'sqlite', file: dbPath },
      internalJwtSecret: SECRET,
      internalJwtSecretGenerated: false,
      logLevel: 'info',
      nodeEnv: 'development',
      production: false,
      publicBaseUrl: undefined,
      apiEnvironment: 'production',
      bodyTimeoutMs: 10_000,
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(existsSync(path.dirname(dbPath))).toBe(true);
  });

  it('when PETS_DB_PATH is not set, then the file is data/pets.db under the working folder, folder created', () => {
    const previous = process.cwd();
    process.chdir(dir);
    try {
      const config = loadPetsConfig({ INTERNAL_JWT_SECRET: SECRET });
      expect(config.database).toEqual({ engine: 'sqlite', file: path.join(process.cwd(), 'data', 'pets.db') });
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

  it('when DATABASE_URL is a postgres:// or postgresql:// URL, then PostgreSQL is used with the default pool, and no SQLite folder is made', () => {
    const previous = process.cwd();
    process.chdir(dir);
    try {
      for (const url of ['postgres://pets:secret@db.internal:5432/pets', 'postgresql://db.internal/pets?sslmode=require']) {
        const config = loadPetsConfig({ INTERNAL_JWT_SECRET: SECRET, DATABASE_URL: url });
        expect(config.database).toEqual({ engine: 'postgres', url, ...POSTGRES_DEFAULTS });
        expect(Object.isFrozen(config.database)).toBe(true);
      }
      expect(existsSync(path.join(dir, 'data'))).toBe(false);
    } finally {
      process.chdir(previous);
    }
  });

  it('when the pool variables are set, then each is used', () => {
    const config = loadPetsConfig({
      INTERNAL_JWT_SECRET: SECRET,
      DATABASE_URL: 'postgres://db.internal/pets',
      DATABASE_POOL_SIZE: '3',
      DATABASE_CONNECT_TIMEOUT_MS: '500',
      DATABASE_STATEMENT_TIMEOUT_MS: '1500',
    });
    expect(config.database).toEqual({ engine: 'postgres', url: 'postgres://db.internal/pets', poolSize: 3, connectTimeoutMs: 500, statementTimeoutMs: 1500 });
  });

  it.each([
    ['DATABASE_URL', 'mysql://root:hunter2@db/pets'],
    ['DATABASE_URL', 'not a url'],
    ['DATABASE_URL', ' '],
    ['DATABASE_POOL_SIZE', '0'],
    ['DATABASE_POOL_SIZE', 'ten'],
    ['DATABASE_CONNECT_TIMEOUT_MS', '50'],
    ['DATABASE_CONNECT_TIMEOUT_MS', '2s'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '-1'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '1e3'],
  ])('when %s is %j, then the start is refused naming it', (name, value) => {
    const problems = problemsOf({ INTERNAL_JWT_SECRET: SECRET, DATABASE_URL: 'postgres://db.internal/pets', [name]: value });
    expect(problems).toEqual([expect.stringMatching(new RegExp(`^${name} `))]);
  });

  it.each([
    ['of another scheme', 'mysql://root:Sup3rSecretPw@db/pets', '"mysql://root:***@db/pets"'],
    // Issue 24's review: one slash parsed as a path without a host; pg then went to its default host and the password was printed.
    ['with one slash', 'postgres:/pets:Sup3rSecretPw@127.0.0.1:1/pets', '"postgres:/pets:***@127.0.0.1:1/pets"'],
    ['without a scheme', 'pets:Sup3rSecretPw@127.0.0.1/pets', 'a value that is not a URL'],
  ])('when a refused DATABASE_URL %s holds a password, then the message does not show it', (_what, url, shown) => {
    const [problem] = problemsOf({ INTERNAL_JWT_SECRET: SECRET, DATABASE_URL: url });
    expect(problem).toMatch(/^DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL with a host/);
    expect(problem).toContain(shown);
    expect(problem).not.toContain('Sup3rSecretPw');
  });

  it('when both PETS_DB_PATH and DATABASE_URL are set, then the start is refused: the pets live in one place', () => {
    expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, DATABASE_URL: 'postgres://db.internal/pets', PETS_DB_PATH: path.join(dir, 'pets.db') })).toEqual([
      expect.stringMatching(/^PETS_DB_PATH and DATABASE_URL are both set/),
    ]);
  });

  it('when the database is described for a log, then a password never appears', () => {
    expect(describeDatabase({ engine: 'postgres', url: 'postgres://pets:s3cret@db:5432/pets', ...POSTGRES_DEFAULTS })).toBe('postgres://pets:***@db:5432/pets');
    expect(describeDatabase({ engine: 'postgres', url: 'postgres://db/pets', ...POSTGRES_DEFAULTS })).toBe('postgres://db/pets');
    expect(describeDatabase({ engine: 'sqlite', file: '/var/lib/pets.db' })).toBe('/var/lib/pets.db');
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
      'INTERNAL_JWT_SECRET must be at least 32 characters long (generate one with: openssl rand -base64 32)',
    ]);
    expect(problemsOf({ NODE_ENV: 'Production', INTERNAL_JWT_SECRET: 'y'.repeat(16), PETS_DB_PATH: path.join(dir, 'pets.db') })).toEqual([
      'INTERNAL_JWT_SECRET must be at least 32 characters long (generate one with: openssl rand -base64 32)',
    ]);
  });

  it.each(['a'.repeat(32), 'qwertyuiopasdfghjklzxcvbnm123456'])('when production is given INTERNAL_JWT_SECRET=%s, then the pets-service refuses it as the gateway does', (secret) => {
    expect(problemsOf({ NODE_ENV: 'production', INTERNAL_JWT_SECRET: secret, PETS_DB_PATH: path.join(dir, 'pets.db') })).toEqual([
      expect.stringMatching(/^INTERNAL_JWT_SECRET is too easy to guess for production \(about 10\^\d+ guesses would find it, fewer than the 10\^20 required[^)]*\); generate one with: openssl rand -base64 32$/),
    ]);
  });

  it.each([':memory:', ' :memory: '])('when PETS_DB_PATH is %j (SQLite\'s in-memory name), then the start is refused naming PETS_DB_PATH, and no file of that name appears', (value) => {
    const previous = process.cwd();
    process.chdir(dir);
    try {
      expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, PETS_DB_PATH: value })).toEqual([expect.stringMatching(/^PETS_DB_PATH=":memory:" .*file path/)]);
      expect(existsSync(path.join(dir, ':memory:'))).toBe(false);
      expect(existsSync(path.join(dir, ' :memory: '))).toBe(false);
    } finally {
      process.chdir(previous);
    }
  });

  it('when the database folder cannot be created, then PETS_DB_PATH is named', () => {
    const blocked = path.join(__filename, 'inside-a-file', 'pets.db');
    expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, PETS_DB_PATH: blocked })).toEqual([expect.stringMatching(/^PETS_DB_PATH/)]);
  });
});
