/**
 * The secrets of a system started for tests or the bench, and a small client of its ops API.
 */
// Strong enough for production (`secretWeakness`), so tests that start a production process use them too.
export const TEST_SECRET = 'test-internal-secret-Vq3nR8kXw2Lp9ZcT6yHf0Jd5';
export const TEST_ADMIN_TOKEN = 'test-admin-token-Tz4kP9wQ2rXv7LmN1cB8sD5f';

/** Calls the ops API of a gateway. */
export async function admin<T = Record<string, unknown>>(
  adminUrl: string,
  method: string,
  pathname: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${adminUrl}${pathname}`, {
    method,
    headers: {
      authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/** An account and one key, through the ops API. */
export async function createAccountWithKey(
  adminUrl: string,
  account: { name?: string; plan?: string; perMinute?: number; perDay?: number } = {},
): Promise<{ accountId: string; keyId: string; key: string }> {
  const created = await admin<{ id: string }>(adminUrl, 'POST', '/admin/accounts', { name: 'test', plan: 'free', ...account });
  if (created.status !== 201) throw new Error(`account not created: ${JSON.stringify(created)}`);
  const key = await admin<{ id: string; key: string }>(adminUrl, 'POST', `/admin/accounts/${created.body.id}/keys`);
  if (key.status !== 201) throw new Error(`key not created: ${JSON.stringify(key)}`);
  return { accountId: created.body.id, keyId: key.body.id, key: key.body.key };
}
