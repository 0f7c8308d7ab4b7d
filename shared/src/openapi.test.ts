import { interfaceDescriptionFor, openApiDocument } from './openapi';

describe('the servers the interface description lists', () => {
  it('when no public address is set, then the serving server comes first as the relative /v1, then production and staging', () => {
    expect(interfaceDescriptionFor(undefined).servers.map((server) => server.url)).toEqual([
      '/v1',
      'https://api.animalstore.example/v1',
      'https://staging.api.animalstore.example/v1',
    ]);
    expect(interfaceDescriptionFor(undefined).servers[0]!.description).toMatch(/^This server/);
  });

  it('when PUBLIC_BASE_URL is set, then it is the first server, and the published constant is left as it was', () => {
    const served = interfaceDescriptionFor('https://pets.example.org/v1');
    expect(served.servers.map((server) => server.url)).toEqual([
      'https://pets.example.org/v1',
      'https://api.animalstore.example/v1',
      'https://staging.api.animalstore.example/v1',
    ]);
    expect(served.paths).toBe(openApiDocument.paths);
    expect(openApiDocument.servers[0].url).toBe('/v1');
  });
});
