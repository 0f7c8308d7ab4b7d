import { nextLinkTarget } from './link-header';

describe('nextLinkTarget', () => {
  it.each([
    ['one next link', '</admin/accounts?cursor=abc>; rel="next"', '/admin/accounts?cursor=abc'],
    ['an absolute target', '<https://api.example/v1/pets?cursor=x&limit=2>; rel="next"', 'https://api.example/v1/pets?cursor=x&limit=2'],
    ['an unquoted rel', '</p?cursor=1>; rel=next', '/p?cursor=1'],
    ['the next link after another', '</p?cursor=0>; rel="prev", </p?cursor=2>; rel="next"', '/p?cursor=2'],
    ['several relations in one rel', '</p?cursor=3>; rel="last next"', '/p?cursor=3'],
    ['other parameters first', '</p?cursor=4>; title="more"; rel="next"', '/p?cursor=4'],
  ])('when the header has %s, then its target', (_what, header, target) => {
    expect(nextLinkTarget(header)).toBe(target);
  });

  it.each([
    ['no header', null],
    ['an empty header', ''],
    ['only a previous link', '</p?cursor=0>; rel="prev"'],
    ['a relation that only contains the word', '</p?cursor=0>; rel="nextish"'],
    ['no angle brackets', '/p?cursor=0; rel="next"'],
  ])('when there is %s, then no target', (_what, header) => {
    expect(nextLinkTarget(header)).toBeUndefined();
  });
});
