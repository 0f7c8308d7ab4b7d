import { v1Target } from './target';

describe('v1Target', () => {
  it.each([
    ['/v1/pets', '/pets', ''],
    ['/v1/pets?limit=20&after=abc', '/pets', '?limit=20&after=abc'],
    ['/v1', '/', ''],
    ['/v1/', '/', ''],
    ['/v1?x=1', '/', '?x=1'],
    ['/v1//pets', '//pets', ''],
    ['/v1/pets/../admin', '/pets/../admin', ''],
    ['/v1/pets#section', '/pets', ''],
    ['/v1/pets?limit=1#section', '/pets', '?limit=1'],
    ['http://api.example.com/v1/pets?limit=2', '/pets', '?limit=2'],
    ['https://api.example.com:8443/v1', '/', ''],
  ])('%s is %s with query "%s"', (url, path, search) => {
    expect(v1Target(url)).toEqual({ path, search });
  });

  it.each(['/', '/v2/pets', '/V1/pets', '/v1x', '/v1.json', '/docs', '/portal/v1', '*', 'http://api.example.com/docs', 'http://api.example.com', 'v1/pets'])(
    '%s is not under /v1',
    (url) => {
      expect(v1Target(url)).toBeUndefined();
    },
  );
});
