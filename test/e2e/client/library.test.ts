import { AnimalStoreClient, AnimalStoreError, type Pet } from '@animal-store/client';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../../helpers/processes';
import { createAccountWithKey, startSystem, type SystemHandle } from '../../helpers/system';

/** The built package (`npm run build`), loaded by its name, against the real gateway and pets-service. */

const nodeRuns = (args: string[]) => execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' }).trim();

describe('the @animal-store/client package, as built', () => {
  it('when resolved by its name, then its exports lead to the built JavaScript, for require and for import', () => {
    expect(require.resolve('@animal-store/client')).toBe(path.join(ROOT, 'client/dist/cjs/index.js'));
    const imported = nodeRuns(['--input-type=module', '-e', "console.log(import.meta.resolve('@animal-store/client'))"]);
    expect(imported).toBe(`file://${path.join(ROOT, 'client/dist/index.mjs')}`);
  });

  it('when loaded with require and with import in one process, then both give the same two classes', () => {
    const script = `
      import { createRequire } from 'node:module';
      import * as esm from '@animal-store/client';
      const cjs = createRequire(import.meta.url)('@animal-store/client');
      const names = (m) => Object.keys(m).filter((k) => k !== 'default' && k !== '__esModule').sort();
      console.log(JSON.stringify({ esm: names(esm), cjs: names(cjs), same: esm.AnimalStoreClient === cjs.AnimalStoreClient && esm.AnimalStoreError === cjs.AnimalStoreError }));`;
    expect(JSON.parse(nodeRuns(['--input-type=module', '-e', script]))).toEqual({
      esm: ['AnimalStoreClient', 'AnimalStoreError'],
      cjs: ['AnimalStoreClient', 'AnimalStoreError'],
      same: true,
    });
  });
});

describe('the client against the embedded system', () => {
  let system: SystemHandle;
  let baseUrl: string;
  let client: AnimalStoreClient;

  beforeAll(async () => {
    system = await startSystem();
    baseUrl = `${system.gateways[0]!.url}/v1`;
    const { key } = await createAccountWithKey(system.gateways[0]!.adminUrl, { plan: 'business' });
    client = new AnimalStoreClient({ baseUrl, apiKey: key });
  });
  afterAll(() => system?.stop());

  it('when pets are created, listed, paged and fetched, then each call gives the API\'s answer, typed', async () => {
    const created: Pet[] = [];
    for (let i = 0; i < 5; i++) created.push(await client.createPet({ name: `Client ${i}`, categoryId: 2, status: 'sold' }));
    expect(created.map((pet) => pet.name)).toEqual(['Client 0', 'Client 1', 'Client 2', 'Client 3', 'Client 4']);

    const first = await client.listPets({ limit: 2, status: 'sold' });
    expect(first.pets).toEqual(created.slice(0, 2));
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await client.listPets({ limit: 2, status: 'sold', cursor: first.nextCursor });
    expect(second.pets).toEqual(created.slice(2, 4));

    const all: Pet[] = [];
    for await (const pet of client.pets({ status: 'sold', pageSize: 2 })) all.push(pet);
    expect(all).toEqual(created);
    const last = await client.listPets({ limit: 5, status: 'sold' });
    expect(last.nextCursor).toBeUndefined();

    expect(await client.getPet(created[0]!.id)).toEqual(created[0]);
    expect(client.rateLimit).toEqual({ limit: 1_000, remaining: expect.any(Number), reset: expect.any(Number) });
    expect(client.rateLimit!.remaining).toBeLessThan(1_000 - 9);
  });

  it('when a create repeats a caller\'s key with the same body, then the same pet comes back; with another body, AnimalStoreError 422', async () => {
    const first = await client.createPet({ name: 'Keyed', categoryId: 1 }, { idempotencyKey: `order-${Date.now()}` });
    const key = `order-${first.id}`;
    const once = await client.createPet({ name: 'Keyed', categoryId: 1 }, { idempotencyKey: key });
    expect(await client.createPet({ name: 'Keyed', categoryId: 1 }, { idempotencyKey: key })).toEqual(once);
    const error = await client.createPet({ name: 'Other', categoryId: 1 }, { idempotencyKey: key }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnimalStoreError);
    expect(error).toMatchObject({ status: 422, code: 'idempotency_key_reused', requestId: expect.stringMatching(/./), retryAfter: undefined });
  });

  it('when the key is unknown, then AnimalStoreError 401 with the message and request id of the answer', async () => {
    const stranger = new AnimalStoreClient({ baseUrl, apiKey: 'ask_live_0000000000000000000000000000000000000000' });
    const error = (await stranger.listPets().catch((e: unknown) => e)) as AnimalStoreError;
    expect(error).toBeInstanceOf(AnimalStoreError);
    expect(error).toMatchObject({ status: 401, code: 'unauthorized', message: expect.stringMatching(/key/i) });
    expect(error.requestId).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    expect(stranger.rateLimit).toEqual({ limit: 60, remaining: expect.any(Number), reset: expect.any(Number) });
  });
});
