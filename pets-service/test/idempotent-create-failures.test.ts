import { REX, freshKey, useServiceWithRecords } from './idempotency-support';
import { describeEachEngine } from './support';

/** A create that is refused or fails keeps no record: its key stays free. */

describeEachEngine('POST /pets with an Idempotency-Key that fails', (engine) => {
  const fixture = useServiceWithRecords(engine);
  const { post } = fixture;

  it('when the body is refused (400), then nothing is stored, and the same key then creates with a valid body', async () => {
    const key = freshKey();
    const records = await fixture.store.countRecords();
    expect((await post('{"name":"","categoryId":3}', key)).status).toBe(400);
    expect((await post('{"name":"Rex"', key)).status).toBe(400);
    expect(await fixture.store.countRecords()).toBe(records);
    const created = await post(REX, key);
    expect(created.status).toBe(201);
    expect(created.headers['idempotent-replayed']).toBeUndefined();
  });

  it('when the record cannot be written, then the pet is not kept either: one transaction', async () => {
    const [pets0, records0] = [await fixture.pets.countPets(), await fixture.store.countRecords()];
    await fixture.store.refuseRecords();
    try {
      const failed = await post(REX, freshKey());
      expect(failed.status).toBe(500);
      expect(failed.body.code).toBe('internal_error');
    } finally {
      await fixture.store.allowRecords();
    }
    expect([await fixture.pets.countPets(), await fixture.store.countRecords()]).toEqual([pets0, records0]);
  });
});
