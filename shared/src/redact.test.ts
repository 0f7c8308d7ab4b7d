import { maskUrlCredentials, redactSecrets } from './redact';

describe('maskUrlCredentials', () => {
  it.each([
    ['redis://app:s3cret@cache:6379/0', 'redis://app:***@cache:6379/0'],
    ['redis://:s3cret@cache:6379', 'redis://:***@cache:6379'],
    ['redis://s3cret@cache', 'redis://***@cache'],
    ['postgres://pets:p@ss@db/pets', 'postgres://pets:***@db/pets'],
    ['http://user:pw@host:notaport', 'http://user:***@host:notaport'],
    ['REDIS_URL must be a URL, got "http://u:pw@h"', 'REDIS_URL must be a URL, got "http://u:***@h"'],
    ['redis://cache:6379', 'redis://cache:6379'],
    // Issue 24's review: these were printed with their passwords.
    ['REDIS_URL=redis:/app:Sup3rSecretPw@127.0.0.1:1', 'REDIS_URL=redis:/app:***@127.0.0.1:1'],
    ['redis://app:Sup3r Secret@Pw@127.0.0.1:6390', 'redis://app:***@127.0.0.1:6390'],
    ['database: "postgres:/pets:Sup3rSecretPw@127.0.0.1:1/pets"', 'database: "postgres:/pets:***@127.0.0.1:1/pets"'],
    ['redis://s3cret pass@cache', 'redis://***@cache'],
    ['from redis://a:pw1@h1 to rediss://b:pw2@h2:6380', 'from redis://a:***@h1 to rediss://b:***@h2:6380'],
    ['redis://cache:6379\nmail me at ann@example.com', 'redis://cache:6379\nmail me at ann@example.com'],
    // When in doubt, more is masked, never less.
    ['redis://cache:6379 for ann@example.com', 'redis://cache:***@example.com'],
    ['mail me at ann@example.com', 'mail me at ann@example.com'],
  ])('when %s is printed, then it reads %s', (text, shown) => {
    expect(maskUrlCredentials(text)).toBe(shown);
  });
});

describe('redactSecrets', () => {
  const key = 'ask_live_4eC39HqLyjWDarjtT1zdp7dcQ2m9Xx';
  it.each([
    [`/v1/pets?api_key=${key}`, '/v1/pets?api_key=[redacted]'],
    [`/v1/pets?limit=5&key=${key}&status=sold`, '/v1/pets?limit=5&key=[redacted]&status=sold'],
    ['/v1/pets?access_token=abc.def.ghi', '/v1/pets?access_token=[redacted]'],
    [`/v1/pets/${key}`, '/v1/pets/ask_live_[redacted]'],
    ['/v1/pets?q=ask_test_ABCdef123', '/v1/pets?q=ask_test_[redacted]'],
    ['/v1/pets?auth=Bearer%20eyJhbGciOi', '/v1/pets?auth=Bearer%20[redacted]'],
    ['Bearer eyJhbGciOiJIUzI1NiJ9.x.y', 'Bearer [redacted]'],
    ['/v1/pets?limit=20&status=available', '/v1/pets?limit=20&status=available'],
    // Issue 24's review: percent-encoded underscores hid the key from the pattern (the gateway decodes them).
    [`/v1/pets?x=ask%5Flive%5F${key.slice(9)}`, '/v1/pets?x=ask%5Flive%5F[redacted]'],
    [`/v1/pets/ask%5flive%5f${key.slice(9)}`, '/v1/pets/ask%5flive%5f[redacted]'],
    [`/v1/pets/%61sk_test_%34eC39Hq`, '/v1/pets/%61sk_test_[redacted]'],
    ['/v1/pets?q=100%25&status=sold', '/v1/pets?q=100%25&status=sold'],
    // Each needs one clause of the one-pass check that lets a plain URL through untouched (issue 29).
    ['/v1/pets?PASSWORD=hunter2', '/v1/pets?PASSWORD=[redacted]'],
    ['/v1/pets;token=abc', '/v1/pets;token=[redacted]'],
    ['redis://app:s3cret@cache:6379', 'redis://app:***@cache:6379'],
    ['BEARER abc', 'BEARER [redacted]'],
  ])('when %s is logged, then it reads %s', (text, shown) => {
    expect(redactSecrets(text)).toBe(shown);
  });
});
