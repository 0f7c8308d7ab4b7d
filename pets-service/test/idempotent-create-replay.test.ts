import { REX, freshKey, useServiceWithRecords } from './idempotency-support';
import { describeEachEngine } from './support';

/** A create sent again with its Idempotency-Key: the first answer again, and no second pet. */

describeEachEngine('POST /pets with an Idempotency-Key sent again', (engine) => {
  const fixture = useServiceWithRecords(engine);
  const { post } = fixture;

  it('when a key is sent the first time, then the pet is created as without one, and the answer says nothing of a replay', async () => {
    const before = await fixture.pets.countPets();
    const first = await post(REX, freshKey());
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 3, status: 'pending' });
    expect(first.headers.location).toBe(`/v1/pets/${first.body.id}`);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(await fixture.pets.countPets()).toBe(before + 1);
  });

  it('when the same key comes again with the same body, then the first answer comes back byte for byte, marked replayed, and nothing is created', async () => {
    const key = freshKey();
    const first = await post(REX, key);
    const before = await fixture.pets.countPets();
    const again = await post(REX, key);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await fixture.pets.countPets()).toBe(before);
  });

  it('when the same JSON value is spelt otherwise (member order, white space, escapes, 3.0 for 3), then it is the same body: a replay', async () => {
    const key = freshKey();
    const first = await post(REX, key);
    const respelt = await post('{ "status" : "pending",\n  "categoryId": 3.0, "name": "\\u0052ex" }', key);
    expect(respelt.status).toBe(201);
    expect(respelt.headers['idempotent-replayed']).toBe('true');
    expect(respelt.body).toEqual(first.body);
  });
});
