import request from 'supertest';
import { ApiError } from '../../../shared/src/errors';
import { presetLocals, stageApp, withoutKey } from '../../test/support/stage-app';
import type { KeyAccess, Principal } from '../accounts/types';
import { expiryRefusal } from '../keys/key-policy';
import { authorize } from './authorize';
import type { V1Locals } from './locals';

const app = (locals: V1Locals) => stageApp(presetLocals(locals), authorize(['/openapi.json']));

function principal(access: KeyAccess): Principal {
  return { keyId: 'key_1', accountId: 'acct_1', plan: 'free', quotas: { perMinute: 5, perDay: 1_000 }, access, expiresAt: null, replacedBy: null };
}

describe('the authorize stage', () => {
  it.each(['GET', 'HEAD', 'POST', 'DELETE'] as const)('when a read-write key sends %s, then the request goes on', async (method) => {
    await request(app({ principal: principal('read-write') }))[method.toLowerCase() as 'get'](`/v1/pets`).expect(200);
  });

  it('when a read-only key reads, then the request goes on', async () => {
    expect((await request(app({ principal: principal('read-only') })).get('/v1/pets').expect(200)).body).toEqual({ principal: { keyId: 'key_1', accountId: 'acct_1' } });
  });

  it('when a read-only key writes, then 403 forbidden with the insufficient_scope challenge', async () => {
    const res = await request(app({ principal: principal('read-only') })).post('/v1/pets').expect(403);
    expect(res.body).toEqual({
      code: 'forbidden',
      status: 403,
      message: 'This API key is read-only: it may only GET and HEAD, so POST is refused. Use a read-write key to make changes.',
    });
    expect(res.headers['www-authenticate']).toBe('Bearer realm="animal-store", error="insufficient_scope", error_description="The API key is read-only"');
  });

  it('when identify left a refusal, then that refusal is the answer, with its headers', async () => {
    const identityRefusal = expiryRefusal({ expiresAt: 0, replacedBy: null }, 1) as ApiError;
    const res = await request(app({ identityRefusal })).get('/v1/pets').expect(401);
    expect(res.body).toEqual(identityRefusal.toBody());
    expect(res.headers['www-authenticate']).toBe(identityRefusal.headers['WWW-Authenticate']);
  });

  it('when a request without a key asks for a keyless path, as Express matches it, then it goes on; any other path is refused', async () => {
    const keyless = stageApp(withoutKey(), authorize(['/openapi.json']));
    for (const path of ['/v1/openapi.json', '/v1/openapi.json/', '/v1/openapi.json?x=1']) await request(keyless).post(path).expect(200);
    for (const path of ['/v1/openapi.json//', '/v1/OPENAPI.json', '/v1/openapi.json/x', '/v1/pets']) await request(keyless).get(path).expect(401);
  });

  it('when nothing identified the caller and nothing refused it (no identify stage ran), then it fails closed with 500', async () => {
    expect((await request(app({})).get('/v1/pets').expect(500)).body).toMatchObject({ code: 'internal_error' });
  });
});
