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
  ])('when %s is logged, then it reads %s', (text, shown) => {
    expect(redactSecrets(text)).toBe(shown);
  });
});
