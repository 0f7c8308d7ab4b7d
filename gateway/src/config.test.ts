import { ConfigError } from '../../shared/src/env';
import { loadGatewayConfig } from './config';

const SECRET = 'x'.repeat(32);

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadGatewayConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('gateway configuration', () => {
  it('when nothing is set, then the contract defaults apply and an admin token is generated', () => {
    const config = loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      adminPort: 8081,
      adminHost: '127.0.0.1',
      redisUrl: undefined,
      petsUrl: 'http://127.0.0.1:8082',
      upstreamTimeoutMs: 10_000,
      trustProxy: false,
      anonPerMinute: 60,
      banThreshold: null,
      banSeconds: 900,
      adminTokenGenerated: true,
      portalSignup: 'open',
    });
    expect(config.adminToken.length).toBeGreaterThanOrEqual(32);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('when several variables are wrong, then every one is named', () => {
    const problems = problemsOf({
      PORT: 'eighty',
      REDIS_URL: 'http://nope',
      UPSTREAM_TIMEOUT_MS: '0',
      TRUST_PROXY: '10.0.0.0/99, proxy.local',
      BAN_SECONDS: '-1',
      LOG_LEVEL: 'loud',
      INTERNAL_JWT_SECRET: SECRET,
    });
    expect(problems.join('\n')).toEqual(expect.stringContaining('PORT'));
    for (const name of ['PORT', 'REDIS_URL', 'UPSTREAM_TIMEOUT_MS', 'TRUST_PROXY', 'BAN_SECONDS', 'LOG_LEVEL']) {
      expect(problems.some((p) => p.startsWith(name))).toBe(true);
    }
  });

  it('when NODE_ENV is production in any case, then development conveniences are off and the secrets are required', () => {
    for (const value of ['Production', 'PRODUCTION', ' production ']) {
      expect(problemsOf({ NODE_ENV: value })).toEqual([
        'ADMIN_TOKEN is required when NODE_ENV=production',
        'INTERNAL_JWT_SECRET is required when NODE_ENV=production',
      ]);
    }
    const config = loadGatewayConfig({ NODE_ENV: 'PRODUCTION', ADMIN_TOKEN: 'a'.repeat(32), INTERNAL_JWT_SECRET: SECRET });
    expect(config).toMatchObject({ production: true, nodeEnv: 'production', adminTokenGenerated: false });
  });

  it('when NODE_ENV is not a known environment, then the start is refused naming it', () => {
    expect(problemsOf({ NODE_ENV: 'prod', INTERNAL_JWT_SECRET: SECRET, ADMIN_TOKEN: 'a'.repeat(32) })).toEqual([
      'NODE_ENV must be one of development, test, production (any case), got "prod"',
    ]);
    expect(loadGatewayConfig({ NODE_ENV: 'Development', INTERNAL_JWT_SECRET: SECRET })).toMatchObject({ production: false, adminTokenGenerated: true });
  });

  it('when PUBLIC_BASE_URL is set, then it must be an http(s) URL ending in /v1, kept without a trailing slash', () => {
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET, PUBLIC_BASE_URL: 'https://api.example.com/v1/' }).publicBaseUrl).toBe('https://api.example.com/v1');
    for (const bad of ['api.example.com/v1', 'ftp://api.example.com/v1', 'https://api.example.com/', 'https://api.example.com/v1?x=1', 'https://u:p@api.example.com/v1']) {
      expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, PUBLIC_BASE_URL: bad })).toEqual([expect.stringMatching(/^PUBLIC_BASE_URL must be/)]);
    }
  });

  it('when NODE_ENV=production lacks the secrets, then both are named', () => {
    const problems = problemsOf({ NODE_ENV: 'production' });
    expect(problems).toEqual(
      expect.arrayContaining([
        'ADMIN_TOKEN is required when NODE_ENV=production',
        'INTERNAL_JWT_SECRET is required when NODE_ENV=production',
      ]),
    );
  });

  it('when TRUST_PROXY is a hop count or a list, then it is kept in the form express expects', () => {
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET, TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET, TRUST_PROXY: '10.0.0.0/8, ::1,loopback' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '::1',
      'loopback',
    ]);
  });

  it('when BAN_THRESHOLD is set, then it replaces the per-minute default', () => {
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET, BAN_THRESHOLD: '5' }).banThreshold).toBe(5);
  });

  it('when PORTAL_SIGNUP is closed, then it is kept; another value is refused naming the variable', () => {
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET, PORTAL_SIGNUP: 'closed' }).portalSignup).toBe('closed');
    expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, PORTAL_SIGNUP: 'invite-only' })).toEqual(['PORTAL_SIGNUP must be one of open, closed, got "invite-only"']);
  });
});
