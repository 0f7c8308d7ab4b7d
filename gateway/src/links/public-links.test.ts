import { absoluteLinkField, linkRewriter } from './public-links';

const BASE = 'https://api.animalstore.example/v1';

describe('links made absolute on PUBLIC_BASE_URL', () => {
  it('when PUBLIC_BASE_URL is unset, then there is nothing to rewrite', () => {
    expect(linkRewriter(undefined)).toBeUndefined();
  });

  it('when the pets-service answers with /v1 references, then Location and every Link target become absolute on the base', () => {
    const headers = { location: '/v1/pets/7', link: '</v1/pets?limit=2&cursor=abc>; rel="next", </v1/pets>; rel="successor-version"', 'content-type': 'application/json' };
    linkRewriter(BASE)!(headers);
    expect(headers).toEqual({
      location: `${BASE}/pets/7`,
      link: `<${BASE}/pets?limit=2&cursor=abc>; rel="next", <${BASE}/pets>; rel="successor-version"`,
      'content-type': 'application/json',
    });
  });

  it('when a reference is absolute already, or a path outside /v1 (/v10, /v1x, /docs), then it is left as it is', () => {
    const headers = { location: 'https://elsewhere.example/v1/pets/7', link: ['</v10/pets>; rel="a"', '</v1x>; rel="b"', '</docs>; rel="c"'] };
    linkRewriter(BASE)!(headers);
    expect(headers).toEqual({ location: 'https://elsewhere.example/v1/pets/7', link: ['</v10/pets>; rel="a"', '</v1x>; rel="b"', '</docs>; rel="c"'] });
    expect(absoluteLinkField('</v1>; rel="index"', BASE)).toBe(`<${BASE}>; rel="index"`);
  });
});
