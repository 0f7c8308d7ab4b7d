import { describeOnEachStack } from './support/ops-api';

/** An account's keys as operators see them: masked, with their times and bans, never the key. */

describeOnEachStack('GET /admin/accounts/{id}/keys', (ops) => {
  const { auth, createAccount, createKey, traffic } = ops;

  /** The lifecycle fields of a key created without any (see key-lifecycle.test.ts). */
  const neverRolled = { name: null, access: 'read-write', expiresAt: null, replacedBy: null };

  it('when an account has keys, then each shows id, a masked form, times and ban, and never the key or its hash', async () => {
    const account = await createAccount({ name: 'Keyed', plan: 'free' });
    const used = await createKey(account.id);
    const revoked = await createKey(account.id);
    const fresh = await createKey(account.id);
    expect((await ops.api.delete(`/admin/keys/${revoked.id}`).set(auth)).status).toBe(204);
    const beforeUse = Date.now();
    await traffic(account.id, used.id, { perMinute: 1, perDay: 100 }, 4); // accepted, limited, limited, banned

    const res = await ops.api.get(`/admin/accounts/${account.id}/keys`).set(auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        ...neverRolled,
        id: used.id,
        masked: `ask_live_…${used.key.slice(-4)}`,
        createdAt: expect.any(String),
        revokedAt: null,
        lastUsedAt: expect.any(String),
        bannedUntil: expect.any(String),
      },
      { ...neverRolled, id: revoked.id, masked: `ask_live_…${revoked.key.slice(-4)}`, createdAt: expect.any(String), revokedAt: expect.any(String), lastUsedAt: null, bannedUntil: null },
      { ...neverRolled, id: fresh.id, masked: `ask_live_…${fresh.key.slice(-4)}`, createdAt: expect.any(String), revokedAt: null, lastUsedAt: null, bannedUntil: null },
    ]);
    expect(Date.parse(res.body[0].lastUsedAt)).toBeGreaterThanOrEqual(beforeUse - 1);
    expect(Date.parse(res.body[0].bannedUntil)).toBeGreaterThan(Date.now() + 800_000);
    for (const key of [used, revoked, fresh]) expect(res.text).not.toContain(key.key.slice(9, -4));
    expect(res.text).not.toMatch(/[0-9a-f]{64}/);

    expect((await ops.api.delete(`/admin/keys/${used.id}/ban`).set(auth)).status).toBe(204);
    expect((await ops.api.get(`/admin/accounts/${account.id}/keys`).set(auth)).body[0].bannedUntil).toBeNull();
  });

  it('when the account does not exist, then 404 not_found; when it has no keys, then an empty array', async () => {
    expect((await ops.api.get('/admin/accounts/acct_AAAAAAAAAAAAAAAAAAAA/keys').set(auth)).status).toBe(404);
    const account = await createAccount({ name: 'Keyless', plan: 'free' });
    expect((await ops.api.get(`/admin/accounts/${account.id}/keys`).set(auth)).body).toEqual([]);
  });
});
