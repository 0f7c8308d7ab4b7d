import { sleep } from '../helpers/ports';
import { admin, startSystem, type GatewayHandle, type SystemHandle } from '../helpers/system';
import { call, type Reply } from '../helpers/traffic';

/**
 * Key lifecycle through real processes from the compiled build, each rule through the admin API:
 * on one gateway (the embedded in-process store) and on two gateway replicas sharing one Redis,
 * where every key is first used on both replicas (so both cache it) and changed through one of
 * them: the other must apply the change on time (an expiry) or within a second (a roll).
 */
jest.setTimeout(60_000);

interface CreatedKey {
  id: string;
  key: string;
  expiresAt: string | null;
}

interface RolledKey extends CreatedKey {
  replaces: { id: string; expiresAt: string };
}

/** An account whose quotas never get in the way of these tests, and a key of it made with `body`. */
async function accountWithKey(gateway: GatewayHandle, body?: object): Promise<{ accountId: string } & CreatedKey> {
  const account = await admin<{ id: string }>(gateway.adminUrl, 'POST', '/admin/accounts', { name: 'Lifecycle', plan: 'enterprise', perMinute: 100_000, perDay: 10_000_000 });
  expect(account.status).toBe(201);
  const key = await admin<CreatedKey>(gateway.adminUrl, 'POST', `/admin/accounts/${account.body.id}/keys`, body);
  expect(key.status).toBe(201);
  return { accountId: account.body.id, ...key.body };
}

async function roll(gateway: GatewayHandle, keyId: string, gracePeriodSeconds: number): Promise<RolledKey> {
  const rolled = await admin<RolledKey>(gateway.adminUrl, 'POST', `/admin/keys/${keyId}/roll`, { gracePeriodSeconds });
  expect(rolled.status).toBe(201);
  return rolled.body;
}

const listPets = (gateway: GatewayHandle, key: string) => call(`${gateway.url}/v1/pets?limit=1`, { key });

/** One request and when it was sent and answered (this machine's clock, which the gateways share). */
interface Timed {
  replica: number;
  sentAt: number;
  answeredAt: number;
  reply: Reply;
}

/** Sends requests with `key` to every replica in turn, as fast as they answer, from `from` to `until` (Unix ms). */
async function hammer(gateways: GatewayHandle[], key: () => string, from: number, until: number): Promise<Timed[]> {
  await sleep(Math.max(0, from - Date.now()));
  const seen: Timed[] = [];
  for (let i = 0; Date.now() < until; i++) {
    const replica = i % gateways.length;
    const sentAt = Date.now();
    const reply = await listPets(gateways[replica]!, key());
    seen.push({ replica, sentAt, answeredAt: Date.now(), reply });
  }
  return seen;
}

/** Polls every replica until `refused` holds on all of them; how long that took (Infinity past 3 s). */
async function msUntilEveryReplica(gateways: GatewayHandle[], refused: (gateway: GatewayHandle) => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < 3_000) {
    if ((await Promise.all(gateways.map(refused))).every(Boolean)) return Date.now() - started;
    await sleep(20);
  }
  return Infinity;
}

describe.each([
  ['one gateway (in-process store)', { replicas: 1 }],
  ['two gateway replicas on one Redis', { redis: true, replicas: 2 }],
])('key lifecycle on %s', (_name, options) => {
  let system: SystemHandle;
  let gateways: GatewayHandle[];
  /** Where the admin calls go; the API calls go to every replica. */
  let first: GatewayHandle;

  beforeAll(async () => {
    // Every request from this process comes from one address, and a refused key (expired, rolled)
    // is charged to that address's anonymous budget (60 a minute by default): the hammering here
    // would spend it and turn the refusals these tests check into 429s. The anonymous limit has
    // its own tests.
    system = await startSystem({ ...options, gatewayEnv: { ANON_PER_MINUTE: '1000000' } });
    gateways = system.gateways;
    first = gateways[0]!;
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('when a read-only key reads, then it is served on every replica; when it writes, then 403 forbidden, counted, with the rate-limit headers', async () => {
    const { key } = await accountWithKey(first, { name: 'Dashboard', access: 'read-only' });
    for (const gateway of gateways) expect((await listPets(gateway, key)).status).toBe(200);
    for (const gateway of gateways) {
      const before = Number((await listPets(gateway, key)).headers['x-ratelimit-remaining']);
      const refused = await call(`${gateway.url}/v1/pets`, { method: 'POST', key, body: { name: 'Rex', categoryId: 1 } });
      expect(refused.status).toBe(403);
      expect(refused.json).toEqual({ code: 'forbidden', status: 403, message: 'This API key is read-only: it may only GET and HEAD, so POST is refused. Use a read-write key to make changes.' });
      expect(Number(refused.headers['x-ratelimit-remaining'])).toBe(before - 1);
      expect(refused.headers['ratelimit-policy']).toBe('"minute";q=100000;w=60, "day";q=10000000;w=86400');
    }
  });

  it('when a key reaches its expiry, then every replica refuses it on time, saying when it expired, while serving it from its cache until then', async () => {
    const expiresAt = new Date(Date.now() + 2_500).toISOString();
    const { key } = await accountWithKey(first, { expiresAt });
    for (const gateway of gateways) expect((await listPets(gateway, key)).status).toBe(200);

    const expiry = Date.parse(expiresAt);
    const seen = await hammer(gateways, () => key, expiry - 700, expiry + 700);
    // Answered before the expiry: served. Sent after it: refused (a request sent just before may go either way).
    for (const { answeredAt, reply } of seen.filter((one) => one.answeredAt < expiry)) expect({ answeredAt, status: reply.status }).toEqual({ answeredAt, status: 200 });
    const late = seen.filter((one) => one.sentAt > expiry);
    expect(new Set(late.map((one) => one.replica)).size).toBe(gateways.length);
    for (const { reply } of late) {
      expect(reply.status).toBe(401);
      expect(reply.json).toEqual({ code: 'unauthorized', status: 401, message: `This API key expired at ${expiresAt}; use another key of the account, or create one.` });
    }
  });

  it('when a key is rolled with a grace period, then both keys work on every replica until it ends, then the old one is refused naming the new key\'s id, never the key', async () => {
    const old = await accountWithKey(first, { name: 'Nightly export' });
    for (const gateway of gateways) expect((await listPets(gateway, old.key)).status).toBe(200);
    const rolled = await roll(gateways[gateways.length - 1]!, old.id, 3);
    expect(rolled).toMatchObject({ name: 'Nightly export', access: 'read-write', replaces: { id: old.id } });

    const graceEnds = Date.parse(rolled.replaces.expiresAt);
    for (const gateway of gateways) expect((await listPets(gateway, rolled.key)).status).toBe(200);
    const during = await hammer(gateways, () => old.key, Date.now(), graceEnds - 300);
    expect(during.map(({ reply }) => reply.status).filter((status) => status !== 200)).toEqual([]);

    await sleep(Math.max(0, graceEnds - Date.now() + 10));
    for (const gateway of gateways) {
      const refused = await listPets(gateway, old.key);
      expect(refused.status).toBe(401);
      expect(refused.json?.message).toBe(`This API key expired at ${rolled.replaces.expiresAt}: it was rolled, and its replacement is key ${rolled.id}; use that key.`);
      expect(refused.text).not.toContain(rolled.key);
      expect((await listPets(gateway, rolled.key)).status).toBe(200);
    }
    const listed = await admin<Array<{ id: string; replacedBy: string | null; expiresAt: string | null }>>(first.adminUrl, 'GET', `/admin/accounts/${old.accountId}/keys`);
    expect(listed.body.map(({ id, replacedBy, expiresAt }) => ({ id, replacedBy, expiresAt }))).toEqual([
      { id: old.id, replacedBy: rolled.id, expiresAt: rolled.replaces.expiresAt },
      { id: rolled.id, replacedBy: null, expiresAt: null },
    ]);
  });

  it('when a key cached on every replica is rolled with no grace period, then every replica refuses it within 1 s', async () => {
    const old = await accountWithKey(first);
    for (const gateway of gateways) expect((await listPets(gateway, old.key)).status).toBe(200);
    const rolled = await roll(first, old.id, 0);
    expect(await msUntilEveryReplica(gateways, async (gateway) => (await listPets(gateway, old.key)).status === 401)).toBeLessThan(1_000);
    for (const gateway of gateways) expect((await listPets(gateway, rolled.key)).status).toBe(200);
  });

  it('when a client switches to the new key within the grace period, then it sees zero failed requests', async () => {
    const old = await accountWithKey(first);
    let current = old.key;
    const until = Date.now() + 4_000;
    // The client keeps calling every replica in turn while an operator rolls its key on one of them.
    const traffic = hammer(gateways, () => current, Date.now(), until);
    await sleep(500);
    const rolled = await roll(gateways[gateways.length - 1]!, old.id, 2);
    await sleep(800); // the client takes its time to deploy the new key, well within the grace period
    current = rolled.key;
    const seen = await traffic;
    expect(seen.length).toBeGreaterThan(20);
    expect(seen.filter(({ reply }) => reply.status !== 200).map(({ replica, reply }) => ({ replica, status: reply.status, body: reply.text }))).toEqual([]);
    expect(seen.some(({ sentAt }) => sentAt > Date.parse(rolled.replaces.expiresAt))).toBe(true);
    expect((await listPets(first, old.key)).status).toBe(401);
  });

  it('when a rolled, revoked or expired key is rolled, then 409 conflict saying why, and no key is made', async () => {
    const rolledOnce = await accountWithKey(first);
    const replacement = await roll(first, rolledOnce.id, 60);
    const again = await admin<{ code: string; message: string }>(gateways[gateways.length - 1]!.adminUrl, 'POST', `/admin/keys/${rolledOnce.id}/roll`, {});
    expect(again.status).toBe(409);
    expect(again.body.message).toContain(`its replacement is key ${replacement.id}`);

    const revoked = await accountWithKey(first);
    expect((await admin(first.adminUrl, 'DELETE', `/admin/keys/${revoked.id}`)).status).toBe(204);
    expect((await admin<{ code: string }>(first.adminUrl, 'POST', `/admin/keys/${revoked.id}/roll`)).body.code).toBe('conflict');

    const expired = await accountWithKey(first, { expiresAt: new Date(Date.now() + 200).toISOString() });
    await sleep(250);
    const refused = await admin<{ code: string; message: string }>(first.adminUrl, 'POST', `/admin/keys/${expired.id}/roll`);
    expect(refused.body).toMatchObject({ code: 'conflict', message: expect.stringContaining(`expired at ${expired.expiresAt}`) });
    expect((await admin<unknown[]>(first.adminUrl, 'GET', `/admin/accounts/${expired.accountId}/keys`)).body).toHaveLength(1);
  });
});
