import { AnimalStoreClient } from '@animal-store/client';
import { admin, createAccountWithKey, startSystem, type SystemHandle } from '../../helpers/system';

/**
 * The client against the real gateway's limits, which ban a key that keeps sending while limited
 * (`BAN_THRESHOLD` refusals within a minute; by default the per-minute quota, here 3).
 *
 * Long by nature: 7 reads on a key allowed 3 a minute need two turns of its minute window, so at
 * least 120 s whatever the client does (the window is fixed at 60 s, and a shorter one is no setting).
 * The second requirement, a client left running against a saturated key for a minute, runs alongside
 * in the same two minutes, on another account, instead of adding a minute of its own.
 */
const PER_MINUTE = 3;

describe('the client on keys limited to 3 requests a minute', () => {
  let system: SystemHandle;
  beforeAll(async () => {
    system = await startSystem();
  });
  afterAll(() => system?.stop());

  it('when one client reads 7 times in a row and another keeps three callers busy meanwhile, then every call succeeds and no key is refused, let alone banned', async () => {
    const adminUrl = system.gateways[0]!.adminUrl;
    const baseUrl = `${system.gateways[0]!.url}/v1`;
    const quota = { plan: 'enterprise', perMinute: PER_MINUTE, perDay: 10_000 };
    const [reading, saturated] = [await createAccountWithKey(adminUrl, quota), await createAccountWithKey(adminUrl, quota)];
    // Calls may wait for the window to turn: a deadline past a minute lets them.
    const reader = new AnimalStoreClient({ baseUrl, apiKey: reading.key, timeoutMs: 90_000 });
    const busy = new AnimalStoreClient({ baseUrl, apiKey: saturated.key, timeoutMs: 90_000 });

    const started = Date.now();
    const readAt: number[] = [];
    // Ends the busy callers once the reads are done (their calls may be waiting for the window to turn).
    const readsDone = new AbortController();
    const sevenReads = (async () => {
      try {
        for (let i = 0; i < 7; i++) {
          await reader.listPets({ limit: 1 });
          readAt.push(Date.now() - started);
        }
      } finally {
        readsDone.abort();
      }
    })();
    let busyCalls = 0;
    const busyFailures: unknown[] = [];
    // Three callers on one client, each calling again as soon as its call ends, for as long as the reads take (two minutes).
    const saturating = Promise.all(
      Array.from({ length: 3 }, async () => {
        while (!readsDone.signal.aborted) {
          try {
            await busy.listPets({ limit: 1, signal: readsDone.signal });
            busyCalls += 1;
          } catch (error) {
            if (readsDone.signal.aborted) return;
            busyFailures.push(error);
            if (busyFailures.length > 10) return;
          }
        }
      }),
    );
    await Promise.all([sevenReads, saturating]);

    expect(readAt).toHaveLength(7);
    // Three per turn of the window: reads 4 and 7 waited for it.
    expect(readAt[3]!).toBeGreaterThanOrEqual(59_000);
    expect(readAt[6]!).toBeGreaterThanOrEqual(119_000);
    expect(busyFailures).toEqual([]);
    expect(busyCalls).toBeGreaterThanOrEqual(2 * PER_MINUTE);
    expect(Date.now() - started).toBeGreaterThanOrEqual(60_000);

    for (const account of [reading, saturated]) {
      const keys = await admin<Array<{ id: string; bannedUntil: string | null }>>(adminUrl, 'GET', `/admin/accounts/${account.accountId}/keys`);
      expect(keys.body.map((key) => key.bannedUntil)).toEqual([null]);
    }
    // The client never sent what the limit would refuse: no refusal counts towards a ban.
    const refused = await admin<Array<{ keyId: string; refused: number }>>(adminUrl, 'GET', '/admin/usage/refused?limit=100');
    expect(refused.body.filter((row) => row.keyId === reading.keyId || row.keyId === saturated.keyId)).toEqual([]);
  }, 200_000);
});
