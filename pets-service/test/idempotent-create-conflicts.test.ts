import { REX, freshKey, tokenFor, useServiceWithRecords } from './idempotency-support';
import { describeEachEngine, serviceToken } from './support';

/** A key used before: refused with another body, and each account's (and each internal service's) own. */

describeEachEngine('POST /pets with an Idempotency-Key used before', (engine) => {
  const fixture = useServiceWithRecords(engine);
  const { post } = fixture;

  it.each([
    ['another name', '{"name":"Max","categoryId":3,"status":"available"}'],
    ['a field left to its default that was given before', '{"name":"Rex","categoryId":3}'],
  ])('when the same key comes with another body (%s), then 422 idempotency_key_reused and nothing is created', async (_case, other) => {
    const key = freshKey();
    expect((await post('{"name":"Rex","categoryId":3,"status":"available"}', key)).status).toBe(201);
    const before = await fixture.pets.countPets();
    const reused = await post(other, key);
    expect(reused.status).toBe(422);
    expect(reused.body).toEqual({ code: 'idempotency_key_reused', status: 422, message: expect.stringContaining('another body') });
    expect(reused.headers['idempotent-replayed']).toBeUndefined();
    expect(await fixture.pets.countPets()).toBe(before);
  });

  it('when two accounts use the same key, then each gets its own pet: keys belong to the account', async () => {
    const key = freshKey();
    const mine = await post(REX, key, tokenFor('account-a'));
    const theirs = await post(REX, key, tokenFor('account-b'));
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect((await post(REX, key, tokenFor('account-a'))).body).toEqual(mine.body);
  });

  it('when an internal service uses a key an account used, then it has a namespace of its own', async () => {
    const key = freshKey();
    const account = await post(REX, key, tokenFor('reports'));
    const service = await post(REX, key, `Bearer ${serviceToken('reports')}`);
    expect(service.status).toBe(201);
    expect(service.body.id).not.toBe(account.body.id);
    expect(service.headers['idempotent-replayed']).toBeUndefined();
    expect((await post(REX, key, `Bearer ${serviceToken('reports')}`)).headers['idempotent-replayed']).toBe('true');
  });
});
