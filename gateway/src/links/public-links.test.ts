import { absoluteLinkField, absoluteLocation } from './public-links';

const BASE = 'https://api.animalstore.example/v1';

describe('links made absolute on PUBLIC_BASE_URL', () => {
  it('when a Link value holds /v1 targets, then every one becomes absolute on the base, parameters kept', () => {
    expect(absoluteLinkField('</v1/pets?limit=2&cursor=abc>; rel="next", </v1/pets>; rel="successor-version"', BASE)).toBe(
      `<${BASE}/pets?limit=2&cursor=abc>; rel="next", <${BASE}/pets>; rel="successor-version"`,
    );
    expect(absoluteLinkField('</v1>; rel="index"', BASE)).toBe(`<${BASE}>; rel="index"`);
  });

  it('when a Location is a path under /v1, then it becomes absolute on the base', () => {
    expect(absoluteLocation('/v1/pets/7', BASE)).toBe(`${BASE}/pets/7`);
    expect(absoluteLocation('/v1?x=1', BASE)).toBe(`${BASE}?x=1`);
  });

  it('when a reference is absolute already, or a path outside /v1 (/v10, /v1x, /docs), then it is left as it is', () => {
    expect(absoluteLocation('https://elsewhere.example/v1/pets/7', BASE)).toBe('https://elsewhere.example/v1/pets/7');
    for (const path of ['/v10/pets', '/v1x', '/docs']) {
      expect(absoluteLocation(path, BASE)).toBe(path);
      expect(absoluteLinkField(`<${path}>; rel="a"`, BASE)).toBe(`<${path}>; rel="a"`);
    }
  });
});
