import { Client } from 'pg';
import { startPetsReplicas, type PetsReplicas } from '../helpers/pets-replicas';
import { sleep, waitFor } from '../helpers/ports';
import { describeIfPrivatePostgres, PrivatePostgres } from '../helpers/private-postgres';
import { createAccountWithKey, startSystem, type SystemHandle } from '../helpers/system';
import { call, expectError, hasRateLimitHeaders, statusCounts, type Reply } from '../helpers/traffic';

/**
 * PostgreSQL stopped (immediate: a crash as far as the data goes) and started again under a steady
 * stream of creates through the gateway, on a server of this test's own (initdb + pg_ctl on a free
 * port, never the machine's shared one): while it is gone every create is answered 503
 * `service_unavailable`, nothing acknowledged with 201 is lost, and creates succeed again within
 * seconds of its return, without restarting anything.
 */
jest.setTimeout(120_000);

interface Sample {
  phase: string;
  reply: Reply;
  name: string;
  headers: boolean;
}

describeIfPrivatePostgres()('PostgreSQL stopped and started under traffic', () => {
  let postgres: PrivatePostgres;
  let pets: PetsReplicas;
  let system: SystemHandle;

  beforeAll(async () => {
    postgres = await PrivatePostgres.create();
    pets = await startPetsReplicas({ databaseUrl: postgres.url, count: 1 });
    system = await startSystem({ petsUrl: pets.petsUrl });
  }, 90_000);

  afterAll(async () => {
    await system?.stop();
    await pets?.stop('SIGKILL');
    await postgres?.destroy();
  });

  async function storedNames(): Promise<Map<number, string>> {
    const client = new Client({ connectionString: postgres.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ id: string; name: string }>('SELECT id, name FROM pets');
      return new Map(rows.map((row) => [Number(row.id), row.name]));
    } finally {
      await client.end();
    }
  }

  it('when the database goes away and comes back, then 503 while it is gone, no acknowledged create is lost, and 201 again within seconds', async () => {
    const gateway = system.gateways[0]!;
    const { key } = await createAccountWithKey(gateway.adminUrl, { plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 });
    let phase = 'up';
    let running = true;
    let counter = 0;
    const samples: Sample[] = [];
    // Requests still on their way, by the phase they started in: a create sent just before the
    // database stops may still reach it after, so each change waits for the last phase's to finish.
    const inFlight = new Map<string, number>();
    const workers = Array.from({ length: 4 }, async () => {
      while (running) {
        const name = `pet-${++counter}`;
        const current = phase;
        inFlight.set(current, (inFlight.get(current) ?? 0) + 1);
        const reply = await call(`${gateway.url}/v1/pets`, { key, method: 'POST', body: { name, categoryId: 1 } });
        inFlight.set(current, inFlight.get(current)! - 1);
        samples.push({ phase: current, reply, name, headers: hasRateLimitHeaders(reply) });
        await sleep(25);
      }
    });

    // Phases last until they have enough samples (at least a second or two): on a loaded machine requests are slow.
    const atLeast = async (count: number, ms: number) => {
      const from = Date.now();
      await sleep(ms);
      await waitFor(() => samples.filter((s) => s.phase === phase).length >= count, 30_000, `${count} samples in phase ${phase} (${Date.now() - from} ms)`);
    };
    const settled = (p: string) => waitFor(() => !inFlight.get(p), 30_000, `requests sent in phase ${p} answered`);
    await atLeast(12, 1_000);
    phase = 'stopping';
    await settled('up');
    await postgres.stop('immediate');
    phase = 'down';
    await atLeast(12, 2_500);
    phase = 'starting';
    await settled('down');
    await postgres.start();
    phase = 'back';
    const backAt = Date.now();
    let firstCreateBackMs: number | undefined;
    while (Date.now() - backAt < 15_000) {
      const created = samples.find((s) => s.phase === 'back' && s.reply.status === 201);
      if (created) {
        firstCreateBackMs = Date.now() - backAt;
        break;
      }
      await sleep(50);
    }
    await sleep(1_000);
    running = false;
    await Promise.all(workers);

    const byPhase = (p: string) => samples.filter((s) => s.phase === p);
    const summary = Object.fromEntries(['up', 'stopping', 'down', 'starting', 'back'].map((p) => [p, statusCounts(byPhase(p).map((s) => s.reply))]));
    // Only 201 and 503, each with the rate-limit headers.
    expect({ summary, others: samples.filter((s) => s.reply.status !== 201 && s.reply.status !== 503).length }).toEqual({ summary, others: 0 });
    expect(samples.filter((s) => !s.headers)).toEqual([]);
    for (const refused of samples.filter((s) => s.reply.status === 503)) expectError(refused.reply, 503, 'service_unavailable');
    // Before: creates; while it is gone: refusals, and no create acknowledged.
    expect(byPhase('up').length).toBeGreaterThan(10);
    expect(byPhase('up').every((s) => s.reply.status === 201)).toBe(true);
    expect(byPhase('down').length).toBeGreaterThan(10);
    expect(byPhase('down').every((s) => s.reply.status === 503)).toBe(true);
    // Back within seconds, and it stays back.
    expect(firstCreateBackMs).toBeDefined();
    expect(firstCreateBackMs!).toBeLessThan(5_000);
    const lastSecond = samples.filter((s) => s.phase === 'back').slice(-10);
    expect(lastSecond.map((s) => s.reply.status)).toEqual(lastSecond.map(() => 201));

    // Nothing acknowledged is lost: every 201's pet is in the database, with its name.
    const stored = await storedNames();
    const acknowledged = samples.filter((s) => s.reply.status === 201).map((s) => ({ id: Number(s.reply.json?.['id']), name: s.name }));
    const lost = acknowledged.filter(({ id, name }) => stored.get(id) !== name);
    expect({ acknowledged: acknowledged.length > 20, lost }).toEqual({ acknowledged: true, lost: [] });
  });
});
