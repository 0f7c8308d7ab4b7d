import request from 'supertest';
import { GET_PET_DEPRECATION_HEADERS } from '../../../shared/src/pets';
import { stageApp, withoutKey } from '../../test/support/stage-app';
import { markDeprecated } from './deprecation';
import { authorize } from './authorize';

const DEPRECATION = Object.fromEntries(Object.entries(GET_PET_DEPRECATION_HEADERS).map(([name, value]) => [name.toLowerCase(), value]));
const NAMES = Object.keys(DEPRECATION);

function deprecationHeadersOf(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(NAMES.filter((name) => name in headers).map((name) => [name, headers[name]!]));
}

describe('the markDeprecated stage', () => {
  const app = stageApp(markDeprecated);

  it.each([
    ['get', '/v1/pets/1', DEPRECATION],
    ['head', '/v1/pets/1', DEPRECATION],
    // 405: every operation of the path is deprecated.
    ['delete', '/v1/pets/1', DEPRECATION],
    // 400: the path has the deprecated path's shape.
    ['get', '/v1/pets/%2e%2e', DEPRECATION],
    ['get', '/v1/pets', {}],
    ['post', '/v1/pets', {}],
    ['delete', '/v1/pets', {}],
    ['get', '/v1/store/orders', {}],
    ['get', '/v1/nothing', {}],
  ] as const)('when the request is %s %s, then it carries the deprecation headers only on the deprecated path', async (method, path, expected) => {
    const res = await request(app)[method](path);
    expect(deprecationHeadersOf(res.headers as Record<string, string>)).toEqual(expected);
  });

  it("when a later stage refuses the request, then the refusal carries them too (the gateway's own 401)", async () => {
    const res = await request(stageApp(markDeprecated, withoutKey(), authorize([]))).get('/v1/pets/1').expect(401);
    expect(deprecationHeadersOf(res.headers as Record<string, string>)).toEqual(DEPRECATION);
  });
});
