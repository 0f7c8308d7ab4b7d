import { randomBytes } from 'node:crypto';
import { ConfigError } from '../../shared/src/env';
import { loadGatewayConfig, redisTargetOf } from './config';

const SECRET = 'x'.repeat(32);
/** Secrets as `openssl rand -base64 32` makes them: what production accepts. */
const STRONG_SECRET = 'q3Vn8R1kXw2Lp9ZcT6yHf0Jd5MbGs4Ae7Ut+Ki/O=';
const STRONG_TOKEN = 'Tz4kP9wQ2rXv7LmN1cB8sD5f';

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
      petsUrls: ['http://127.0.0.1:8082'],
      upstreamTimeoutMs: 10_000,
      trustProxy: false,
      anonPerMinute: 60,
      anonIpv6PrefixLength: 64,
      banThreshold: null,
      banSeconds: 900,
      adminTokenGenerated: true,
      portalSignup: 'open',
      workers: 1,
      webhookAllowPrivate: false,
      webhookRetryDelaysMs: [5_000, 30_000, 120_000, 600_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000],
    });
    expect(config.adminToken.length).toBeGreaterThanOrEqual(32);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it.each([
    // Issue 24's review: accepted (a path without a host), then printed whole.
    ['redis:/app:Sup3rSecretPw@127.0.0.1:1', '"redis:/app:***@127.0.0.1:1"'],
    ['app:Sup3rSecretPw@127.0.0.1:6379', 'a value that is not a URL'],
  ])('when REDIS_URL is %s, then the start is refused naming it without the password', (url, shown) => {
    expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, REDIS_URL: url })).toEqual([`REDIS_URL must be a URL starting with redis:// or rediss://, got ${shown}`]);
  });

  it('when several variables are wrong, then every one is named', () => {
    const problems = problemsOf({
      PORT: 'eighty',
      REDIS_URL: 'http://nope',
      UPSTREAM_TIMEOUT_MS: '0',
      UPSTREAM_TRY_TIMEOUT_MS: '600001',
      TRUST_PROXY: '10.0.0.0/99, proxy.local',
      BAN_SECONDS: '-1',
      LOG_LEVEL: 'loud',
      WEBHOOK_ALLOW_PRIVATE: 'yes',
      WEBHOOK_RETRY_SCHEDULE: '5s,soon',
      INTERNAL_JWT_SECRET: SECRET,
    });
    expect(problems.join('\n')).toEqual(expect.stringContaining('PORT'));
    for (const name of ['PORT', 'REDIS_URL', 'UPSTREAM_TIMEOUT_MS', 'UPSTREAM_TRY_TIMEOUT_MS', 'TRUST_PROXY', 'BAN_SECONDS', 'LOG_LEVEL', 'WEBHOOK_ALLOW_PRIVATE', 'WEBHOOK_RETRY_SCHEDULE']) {
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
    const config = loadGatewayConfig({ NODE_ENV: 'PRODUCTION', ADMIN_TOKEN: STRONG_TOKEN, INTERNAL_JWT_SECRET: STRONG_SECRET });
    expect(config).toMatchObject({ production: true, nodeEnv: 'production', adminTokenGenerated: false });
  });

  // Issue 24's review: each of these started a production gateway; only exact patterns were refused.
  const GUESSABLE_TOKENS = ['0123456789abcdef', '1234567890123456', 'Password12345678', 'changeme-changeme', 'adminadminadmin1', 'qwertyuiopasdfgh', 'admin-token-2024'];
  const GUESSABLE_SECRET = 'qwertyuiopasdfghjklzxcvbnm123456';
  const tooEasy = (variable: string) => new RegExp(`^${variable} is too easy to guess for production \\(about 10\\^\\d+ guesses would find it, fewer than the 10\\^20 required[^)]*\\); generate one with: openssl rand -base64 32$`);

  it.each(GUESSABLE_TOKENS)('when production is given ADMIN_TOKEN=%s, then the start is refused naming it and saying how to generate one, never showing the value', (token) => {
    const problems = problemsOf({ NODE_ENV: 'production', ADMIN_TOKEN: token, INTERNAL_JWT_SECRET: STRONG_SECRET });
    expect(problems).toEqual([expect.stringMatching(tooEasy('ADMIN_TOKEN'))]);
    expect(problems[0]).not.toContain(token);
  });

  it('when production is given a guessable ADMIN_TOKENS token or INTERNAL_JWT_SECRET, then each is named', () => {
    const problems = problemsOf({ NODE_ENV: 'production', ADMIN_TOKEN: STRONG_TOKEN, INTERNAL_JWT_SECRET: GUESSABLE_SECRET, ADMIN_TOKENS: `alice:${GUESSABLE_TOKENS.at(-1)},bob:${STRONG_TOKEN}x` });
    expect(problems).toEqual([expect.stringMatching(tooEasy('ADMIN_TOKENS: the token of "alice"')), expect.stringMatching(tooEasy('INTERNAL_JWT_SECRET'))]);
    expect(problems.join('\n')).not.toMatch(/qwerty|admin-token-2024/);
    // Outside production the same values are accepted: tests and demos use simple ones.
    expect(problemsOf({ ADMIN_TOKEN: 'a'.repeat(16), INTERNAL_JWT_SECRET: GUESSABLE_SECRET, ADMIN_TOKENS: 'alice:abcdefghijklmnopq' })).toEqual([]);
  });

  it('when production is given generated secrets, then it starts: openssl rand -base64 32 and -hex 32 pass', () => {
    for (const [token, secret] of [[randomBytes(32).toString('base64'), randomBytes(32).toString('hex')], [randomBytes(32).toString('hex'), randomBytes(32).toString('base64')]]) {
      expect(problemsOf({ NODE_ENV: 'production', ADMIN_TOKEN: token, INTERNAL_JWT_SECRET: secret, ADMIN_TOKENS: `alice:${randomBytes(32).toString('base64')}` })).toEqual([]);
    }
  });

  it('when NODE_ENV is not a known environment, then the start is refused naming it', () => {
    expect(problemsOf({ NODE_ENV: 'prod', INTERNAL_JWT_SECRET: STRONG_SECRET, ADMIN_TOKEN: STRONG_TOKEN })).toEqual([
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

  it('when SMTP_URL and MAIL_FROM are set, then they are kept; a bad one is named without its password', () => {
    const config = loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET, SMTP_URL: 'smtps://mailer:s3cret@mail.example.com:465', MAIL_FROM: 'Pets <pets@example.com>' });
    expect(config).toMatchObject({ smtpUrl: 'smtps://mailer:s3cret@mail.example.com:465', mailFrom: 'Pets <pets@example.com>' });
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET })).toMatchObject({ smtpUrl: undefined, mailFrom: 'Animal Store <no-reply@localhost>' });
    const problems = problemsOf({ INTERNAL_JWT_SECRET: SECRET, SMTP_URL: 'http://mailer:s3cret@mail.example.com', MAIL_FROM: 'not an address' });
    expect(problems).toEqual([expect.stringMatching(/^SMTP_URL must be a URL starting with smtp:\/\/ or smtps:\/\//), expect.stringMatching(/^MAIL_FROM must be an address/)]);
    expect(problems.join(' ')).not.toContain('s3cret');
  });

  it('when PETS_URL lists several replicas, then each is kept, and a bad entry is named', () => {
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET, PETS_URL: 'http://a:8082, http://b:8082' }).petsUrls).toEqual(['http://a:8082', 'http://b:8082']);
    expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, PETS_URL: 'http://a:8082,b:8082,' })).toEqual([
      'PETS_URL must be a comma-separated list of URLs starting with http:// or https://, but "b:8082", "" is not one',
    ]);
  });

  it('when BODY_TIMEOUT_MS is set, then it is the body deadline; the default is 10 s', () => {
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET }).bodyTimeoutMs).toBe(10_000);
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET, BODY_TIMEOUT_MS: '2500' }).bodyTimeoutMs).toBe(2_500);
    expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, BODY_TIMEOUT_MS: '0' })).toEqual([expect.stringMatching(/^BODY_TIMEOUT_MS must be an integer/)]);
  });

  it('when PREFLIGHT_PER_MINUTE is set, then it is the per-address limit of CORS preflights; the default is 600; 0 or a word is refused naming it', () => {
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET }).preflightPerMinute).toBe(600);
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET, PREFLIGHT_PER_MINUTE: '30' }).preflightPerMinute).toBe(30);
    expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, PREFLIGHT_PER_MINUTE: '0' })).toEqual([expect.stringMatching(/^PREFLIGHT_PER_MINUTE must be an integer/)]);
    expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, PREFLIGHT_PER_MINUTE: 'many' })).toEqual([expect.stringMatching(/^PREFLIGHT_PER_MINUTE must be an integer/)]);
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

  it('when ANON_IPV6_PREFIX_LENGTH is set, then it must be an integer from 1 to 128', () => {
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET, ANON_IPV6_PREFIX_LENGTH: '48' }).anonIpv6PrefixLength).toBe(48);
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET, ANON_IPV6_PREFIX_LENGTH: '128' }).anonIpv6PrefixLength).toBe(128);
    for (const bad of ['0', '129', '64.5', 'sixty-four']) {
      expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, ANON_IPV6_PREFIX_LENGTH: bad })).toEqual([expect.stringMatching(/^ANON_IPV6_PREFIX_LENGTH/)]);
    }
  });

  it('when BAN_THRESHOLD is set, then it replaces the per-minute default', () => {
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET, BAN_THRESHOLD: '5' }).banThreshold).toBe(5);
  });

  it('when ADMIN_ALLOWED_HOSTS lists names, then they are kept lower-case without a trailing dot; a port or a URL is refused naming it', () => {
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET, ADMIN_ALLOWED_HOSTS: 'Ops.Internal, 10.0.0.5,admin.example.' }).adminAllowedHosts).toEqual(['ops.internal', '10.0.0.5', 'admin.example']);
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET }).adminAllowedHosts).toEqual([]);
    expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, ADMIN_ALLOWED_HOSTS: 'ops.internal:8081,http://x' })).toEqual([
      'ADMIN_ALLOWED_HOSTS must be a comma-separated list of host names or IP addresses without ports, but "ops.internal:8081", "http://x" are not',
    ]);
  });

  describe('ADMIN_TOKENS', () => {
    const ALICE = 'alice-token-Hq7Zp2Lw9Vx4Rk1Nm6Ty';
    const BOB = 'bob:token:with:colons-0123';

    it('when operators have tokens of their own, then each is accepted under its name, after ADMIN_TOKEN as "admin"', () => {
      const config = loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET, ADMIN_TOKEN: 'a'.repeat(32), ADMIN_TOKENS: `alice:${ALICE}, ops.bob:${BOB}` });
      expect(config.adminTokens).toEqual([
        { name: 'admin', token: 'a'.repeat(32) },
        { name: 'alice', token: ALICE },
        { name: 'ops.bob', token: BOB },
      ]);
    });

    it('when only ADMIN_TOKENS is set, then no shared token is generated, in production too', () => {
      const config = loadGatewayConfig({ NODE_ENV: 'production', INTERNAL_JWT_SECRET: STRONG_SECRET, ADMIN_TOKENS: `alice:${ALICE}` });
      expect(config).toMatchObject({ adminToken: '', adminTokenGenerated: false, adminTokens: [{ name: 'alice', token: ALICE }] });
    });

    it('when neither is set, then the generated ADMIN_TOKEN is the only token, as "admin"', () => {
      const config = loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET });
      expect(config.adminTokens).toEqual([{ name: 'admin', token: config.adminToken }]);
    });

    it.each([
      ['an entry without a colon', `alice${ALICE}`, /^ADMIN_TOKENS must be a comma-separated list of name:token, but entry 1 has no ":"/],
      ['an empty entry', `alice:${ALICE},`, /^ADMIN_TOKENS must be .* entry 2 has no ":"/],
      ['a name with capitals', `Alice:${ALICE}`, /^ADMIN_TOKENS: entry 1 has the name "Alice"/],
      ['an empty name', `:${ALICE}`, /^ADMIN_TOKENS: entry 1 has the name ""/],
      ['a name too long', `${'a'.repeat(33)}:${ALICE}`, /^ADMIN_TOKENS: entry 1 has the name/],
      ['a short token', 'alice:short', /^ADMIN_TOKENS: the token of "alice" must be at least 16 characters long$/],
      ['a token with a space', 'alice:has a space in it 0123456', /^ADMIN_TOKENS: the token of "alice" must be visible ASCII/],
      ['an empty token', 'alice:', /^ADMIN_TOKENS: the token of "alice" must be visible ASCII/],
      ['a name twice', `alice:${ALICE},alice:${ALICE}x`, /^ADMIN_TOKENS: the name "alice" is given twice$/],
      ['a token twice', `alice:${ALICE},bob:${ALICE}`, /^ADMIN_TOKENS: "bob" has the same token as "alice"$/],
    ])('when ADMIN_TOKENS has %s, then the start is refused naming the variable (never the token)', (_what, value, message) => {
      const problems = problemsOf({ INTERNAL_JWT_SECRET: SECRET, ADMIN_TOKENS: value });
      expect(problems).toEqual([expect.stringMatching(message)]);
      expect(problems[0]).not.toContain(ALICE);
    });

    it('when ADMIN_TOKENS repeats ADMIN_TOKEN\'s name or token, then that is refused too', () => {
      const shared = 'shared-token-0123456789';
      expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, ADMIN_TOKEN: shared, ADMIN_TOKENS: `admin:${ALICE}` })).toEqual([
        'ADMIN_TOKENS: the name "admin" is given twice (it is the name of ADMIN_TOKEN)',
      ]);
      expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, ADMIN_TOKEN: shared, ADMIN_TOKENS: `alice:${shared}` })).toEqual(['ADMIN_TOKENS: "alice" has the same token as ADMIN_TOKEN']);
    });
  });

  it('when OPS_FLUSH_INTERVAL_MS is set, then it is kept within 100 ms to 60 s', () => {
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET }).opsFlushIntervalMs).toBe(1_000);
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET, OPS_FLUSH_INTERVAL_MS: '250' }).opsFlushIntervalMs).toBe(250);
    expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, OPS_FLUSH_INTERVAL_MS: '10' })).toEqual([expect.stringMatching(/^OPS_FLUSH_INTERVAL_MS must be an integer from 100 to 60000/)]);
  });

  it('when REDIS_TIMEOUT_MS is set, then it is kept within 10 ms to 5 s, 250 ms by default', () => {
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET }).redisTimeoutMs).toBe(250);
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET, REDIS_TIMEOUT_MS: '1500' }).redisTimeoutMs).toBe(1_500);
    expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, REDIS_TIMEOUT_MS: '5' })).toEqual([expect.stringMatching(/^REDIS_TIMEOUT_MS must be an integer from 10 to 5000/)]);
    expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, REDIS_TIMEOUT_MS: 'soon' })).toEqual([expect.stringMatching(/^REDIS_TIMEOUT_MS must be an integer from 10 to 5000/)]);
  });

  it('when REDIS_CLUSTER_NODES lists host:port seeds, then the gateway targets that cluster', () => {
    const config = loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET, REDIS_CLUSTER_NODES: 'redis-a:7000, 10.0.0.2:7001,[::1]:7002' });
    expect(config.redisClusterNodes).toEqual([
      { host: 'redis-a', port: 7000 },
      { host: '10.0.0.2', port: 7001 },
      { host: '::1', port: 7002 },
    ]);
    expect(redisTargetOf(config)).toEqual({ clusterNodes: config.redisClusterNodes });
    expect(redisTargetOf(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET, REDIS_URL: 'redis://r:6379' }))).toEqual({ url: 'redis://r:6379' });
    expect(redisTargetOf(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET }))).toBeUndefined();
  });

  it('when REDIS_CLUSTER_NODES has bad entries, then each one is named', () => {
    expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, REDIS_CLUSTER_NODES: 'good:7000,redis://x:7001,nohost,h:0,h:70000,[zz]:1,' })).toEqual([
      'REDIS_CLUSTER_NODES must be a comma-separated list of host:port (port 1-65535), but "redis://x:7001", "nohost", "h:0", "h:70000", "[zz]:1", "" are not',
    ]);
    expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, REDIS_CLUSTER_NODES: 'a:1,b' })).toEqual([
      'REDIS_CLUSTER_NODES must be a comma-separated list of host:port (port 1-65535), but "b" is not one',
    ]);
  });

  it('when both REDIS_URL and REDIS_CLUSTER_NODES are set, then the start is refused naming both', () => {
    expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, REDIS_URL: 'redis://r:6379', REDIS_CLUSTER_NODES: 'a:7000' })).toEqual([
      expect.stringMatching(/^REDIS_URL and REDIS_CLUSTER_NODES are both set/),
    ]);
  });

  it('when PORTAL_SIGNUP is closed, then it is kept; another value is refused naming the variable', () => {
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET, PORTAL_SIGNUP: 'closed' }).portalSignup).toBe('closed');
    expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, PORTAL_SIGNUP: 'invite-only' })).toEqual(['PORTAL_SIGNUP must be one of open, closed, got "invite-only"']);
  });

  it('when GATEWAY_WORKERS is above 1 with a Redis, then it is kept; without one, or out of range, the start is refused naming the variable', () => {
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET, GATEWAY_WORKERS: '4', REDIS_URL: 'redis://r:6379' }).workers).toBe(4);
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET, GATEWAY_WORKERS: '2', REDIS_CLUSTER_NODES: 'a:7000' }).workers).toBe(2);
    expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, GATEWAY_WORKERS: '2' })).toEqual([expect.stringMatching(/^GATEWAY_WORKERS is 2, but without REDIS_URL or REDIS_CLUSTER_NODES/)]);
    expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, GATEWAY_WORKERS: '0', REDIS_URL: 'redis://r:6379' })).toEqual([expect.stringMatching(/^GATEWAY_WORKERS/)]);
  });

  it('when CORS_ORIGINS is set, then each entry is kept as the origin a browser sends, and anything else is named', () => {
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET }).corsOrigins).toEqual([]);
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET, CORS_ORIGINS: 'https://App.Example.com, http://localhost:3000,https://a.example:443' }).corsOrigins).toEqual([
      'https://app.example.com',
      'http://localhost:3000',
      'https://a.example',
    ]);
    expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, CORS_ORIGINS: 'https://ok.example,app.example.com,https://a.example/,*,ftp://f.example,' })).toEqual([
      'CORS_ORIGINS must be a comma-separated list of origins, scheme://host[:port] with http or https and no path (e.g. https://app.example.com), but "app.example.com", "https://a.example/", "*", "ftp://f.example", "" are not',
    ]);
  });

  it('when GATEWAY_MIDDLEWARE is set, then its module paths are kept in order, and an empty entry is refused', () => {
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET }).gatewayMiddleware).toEqual([]);
    expect(loadGatewayConfig({ INTERNAL_JWT_SECRET: SECRET, GATEWAY_MIDDLEWARE: './plugins/a.js, /opt/b.mjs' }).gatewayMiddleware).toEqual(['./plugins/a.js', '/opt/b.mjs']);
    expect(problemsOf({ INTERNAL_JWT_SECRET: SECRET, GATEWAY_MIDDLEWARE: './a.js,,./b.js' })).toEqual([expect.stringMatching(/^GATEWAY_MIDDLEWARE must be a comma-separated list of module paths/)]);
  });
});
