import fc from 'fast-check';
import { openApiDocument } from '../../../shared/src/openapi';
import { checkPath, ROUTES, routeTableOf } from './route-table';

describe('the route table', () => {
  it('when built from the interface description, then it has exactly the documented paths and methods (HEAD beside GET)', () => {
    const documented = Object.entries(openApiDocument.paths).map(([template, item]) => [template, Object.keys(item).map((m) => m.toUpperCase())]);
    expect(ROUTES.paths.map((p) => [p.template, [...p.operations.keys()].filter((m) => m !== 'HEAD')])).toEqual(documented);
    expect(ROUTES.paths.find((p) => p.template === '/pets')?.allow).toBe('GET, HEAD, POST');
    expect(ROUTES.notImplementedPrefixes).toEqual(['/store']);
  });

  it('when a documented path is asked for, then the operation comes with what the document says of it', () => {
    const match = ROUTES.match('GET', '/pets/42');
    expect(match).toMatchObject({ kind: 'path', forwardPath: '/pets/42', operation: { operationId: 'getPet', deprecated: true, acceptsBody: false } });
    expect(ROUTES.match('POST', '/pets')).toMatchObject({ kind: 'path', forwardPath: '/pets', operation: { operationId: 'createPet', acceptsBody: true } });
    expect(ROUTES.match('HEAD', '/pets/')).toMatchObject({ kind: 'path', forwardPath: '/pets', operation: { operationId: 'listPets' } });
  });

  it('when the method is not documented for the path, then the path matches without an operation (405)', () => {
    expect(ROUTES.match('DELETE', '/pets/1')).toMatchObject({ kind: 'path', operation: undefined, path: { allow: 'GET, HEAD' } });
  });

  it.each(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND'])(
    'when %s asks for a path under the store section, documented or not, then it is not implemented (501, never 405)',
    (method) => {
      for (const path of ['/store/orders', '/store/orders/', '/store/orders/7', '/store', '/store/inventory']) {
        expect(ROUTES.match(method, path)).toEqual({ kind: 'not-implemented', section: '/store' });
      }
      expect(ROUTES.match(method, '/storefront')).toEqual({ kind: 'unknown' });
    },
  );

  it('when the case differs or the path is unknown, then nothing matches', () => {
    expect(ROUTES.match('GET', '/PETS')).toEqual({ kind: 'unknown' });
    expect(ROUTES.match('GET', '/pets/1/owner')).toEqual({ kind: 'unknown' });
    expect(ROUTES.match('GET', '/')).toEqual({ kind: 'unknown' });
  });

  it.each([
    ['/pets/..\\..\\healthz', /backslash/],
    ['/pets/%2e%2e', /"\."/],
    ['/pets/..', /"\."/],
    ['/pets/%2E', /"\."/],
    ['/pets/./1', /"\."/],
    ['/pets/1%2F..%2Fhealthz', /encoded slash/],
    ['/pets/1%5c..', /encoded slash/],
    ['/pets//1', /empty segments/],
    ['/pets/%E0%A4%A', /percent-encoding/],
  ])('when the path is %j, then it is refused before anything is forwarded', (path, reason) => {
    const match = ROUTES.match('GET', path);
    expect(match.kind).toBe('bad-path');
    expect(match.kind === 'bad-path' && match.reason).toMatch(reason);
  });

  it('when a parameter holds encoded characters, then it is forwarded re-encoded within its one segment', () => {
    expect(ROUTES.match('GET', '/pets/%41b%20c')).toMatchObject({ kind: 'path', forwardPath: '/pets/Ab%20c' });
    expect(ROUTES.match('GET', '/pets/a?b')).toMatchObject({ forwardPath: '/pets/a%3Fb' });
  });

  it('when any path is matched, then the forwarded path is one of the documented templates with one segment per parameter', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary' }), { maxLength: 4 }), fc.constantFrom('GET', 'POST', 'DELETE'), (parts, method) => {
        const match = ROUTES.match(method, `/${parts.join('/')}`);
        if (match.kind !== 'path') return;
        const segments = match.forwardPath.split('/').slice(1);
        expect(segments).toHaveLength(match.path.segments.length);
        for (const segment of segments) {
          expect(segment).not.toMatch(/^\.{1,2}$|[\\/?#]/);
          // Well-formed percent-encoding that stays one segment, as the pets-service reads it back.
          expect(() => decodeURIComponent(segment)).not.toThrow();
          expect(encodeURIComponent(decodeURIComponent(segment))).toBe(segment);
        }
      }),
    );
  });

  it('when a document names other paths, then the table follows it', () => {
    const table = routeTableOf({ paths: { '/a/{x}/b': { put: {} } }, tags: [] });
    expect(table.match('PUT', '/a/1/b')).toMatchObject({ kind: 'path', forwardPath: '/a/1/b' });
    expect(table.match('GET', '/a/1/b')).toMatchObject({ kind: 'path', operation: undefined, path: { allow: 'PUT' } });
  });

  it('when checkPath sees a plain path, then it returns its decoded segments', () => {
    expect(checkPath('/pets/caf%C3%A9/')).toEqual(['pets', 'café']);
  });
});
