import request from 'supertest';
import { createLogger } from '../../../shared/src/logger';
import { createAdminApp } from '../../src/admin/app';
import { ADMIN_TOKEN } from './gateway';
import { opsParts } from './ops';
import { SHARED_TOKEN_ACTOR } from '../../src/admin/tokens';

/**
 * What the admin API's tests (gateway/test/admin-api-*.test.ts) share: the admin app alone, on the
 * in-process ops parts, driven by supertest in this process; and the shape every error answer has.
 */

export { ADMIN_TOKEN };
export const adminLogger = createLogger('admin-test', 'silent');

/**
 * A new admin app as `createGateway` builds it, with two extra routes as the gateway mounts its own
 * (`/metrics`, open; `/guarded`, behind `requireAdmin`). A test file makes one before each test, so
 * no test sees another's accounts, plans or bans.
 */
export function adminApi() {
  const { store, limiter, service, reports } = opsParts();
  const app = createAdminApp({
    service,
    reports,
    adminTokens: [{ name: SHARED_TOKEN_ACTOR, token: ADMIN_TOKEN }],
    logger: adminLogger,
    extraRoutes: (router, { requireAdmin }) => {
      router.get('/metrics', (_req, res) => {
        res.type('text/plain').send('# metrics\n');
      });
      router.get('/guarded', requireAdmin, (_req, res) => {
        res.json({ ok: true });
      });
    },
  });
  const api = request(app);
  const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };

  /** An account through the API (201 expected), Free unless `body` says otherwise. */
  async function createAccount(body: object = { name: 'Acme', plan: 'free' }) {
    const res = await api.post('/admin/accounts').set(auth).send(body);
    expect(res.status).toBe(201);
    return res.body as { id: string; name: string; plan: string; perMinute: number; perDay: number };
  }

  return { store, limiter, service, app, api, auth, createAccount };
}

export type AdminApi = ReturnType<typeof adminApi>;

/** An error answer of the admin API: `status`, `code` and a message (mentioning `mentions`), always JSON. */
export function expectError(res: request.Response, status: number, code: string, mentions?: string | RegExp) {
  expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
  expect(res.body).toEqual({ code, message: expect.any(String), status });
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  if (mentions) expect(res.body.message).toMatch(mentions);
}
