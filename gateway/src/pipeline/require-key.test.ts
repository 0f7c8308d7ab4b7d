import request from 'supertest';
import { presetLocals, stageApp } from '../../test/support/stage-app';
import type { Principal } from '../accounts/types';
import type { ApiError } from '../../../shared/src/errors';
import { expiryRefusal } from '../keys/key-policy';
import { requireKey } from './require-key';
import type { V1Locals } from './locals';

const app = (locals: V1Locals) => stageApp(presetLocals(locals), requireKey);

describe('the requireKey stage', () => {
  it('when authentication found a principal, then the request goes on', async () => {
    const principal = { keyId: 'key_1', accountId: 'acct_1' } as Principal;
    expect((await request(app({ principal })).get('/v1/pets').expect(200)).body).toEqual({ principal });
  });

  it('when authentication left a refusal, then that refusal is the answer, with its headers', async () => {
    const authError = expiryRefusal({ expiresAt: 0, replacedBy: null }, 1) as ApiError;
    const res = await request(app({ authError })).get('/v1/pets').expect(401);
    expect(res.body).toEqual(authError.toBody());
    expect(res.headers['www-authenticate']).toBe(authError.headers['WWW-Authenticate']);
  });

  it('when authentication left nothing, then 401 asks for a key, with the challenge', async () => {
    const res = await request(app({})).get('/v1/pets').expect(401);
    expect(res.body).toEqual({ code: 'unauthorized', status: 401, message: 'An API key is required: send Authorization: Bearer <key>.' });
    expect(res.headers['www-authenticate']).toBe('Bearer realm="animal-store"');
  });
});
