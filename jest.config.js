/**
 * Three tiers, each a jest project (`npm test` runs all three; `npm run test:unit`, `test:service`,
 * `test:e2e` one each, or `npx jest --selectProjects unit service`):
 * - unit: the *.test.ts beside the sources; no process, no Redis, no database server.
 * - service: a service in this process (gateway/test, pets-service/test) against a real
 *   redis-server or PostgreSQL.
 * - e2e: test/, the compiled services, the admin CLI or a browser as real processes; the only tier that needs
 *   `dist/`, built by its global set-up, and the one that type-checks the whole project (test/typecheck.test.ts).
 * The tiers are told apart by where a file is (testMatch), never by ignore patterns, which a
 * command line's --testPathIgnorePatterns replaces, nor by lists of files: a test that runs another
 * process lives in test/ (its helpers in test/helpers/), whatever it tests.
 */
const shared = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/{gateway,pets-service,shared,client}/src/**/*.test.ts', '<rootDir>/{scripts,bench,tools}/**/*.test.ts'],
    },
    {
      ...shared,
      displayName: 'service',
      testMatch: ['<rootDir>/{gateway,pets-service}/test/**/*.test.ts'],
      // A file that leaves a socket, server, timer or process open fails, named (test/helpers/handle-guard-environment.js).
      testEnvironment: '<rootDir>/test/helpers/handle-guard-environment.js',
    },
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      globalSetup: '<rootDir>/test/helpers/global-setup.js',
    },
  ],
  // The longest files first (test/helpers/sequencer.js): a clean clone has no timing cache.
  testSequencer: '<rootDir>/test/helpers/sequencer.js',
  maxWorkers: 2,
  testTimeout: 30000,
};
