import request from 'supertest';
import { REX, useServiceWithRecords } from './idempotency-support';
import { describeEachEngine } from './support';

/** The Idempotency-Key header itself: which keys are accepted, and the reads that ignore it. */

describeEachEngine('the Idempotency-Key header', (engine) => {
  const fixture = useServiceWithRecords(engine);
  const { post } = fixture;

  it.each([
    ['empty', '', 'is empty'],
    ['256 characters long', 'k'.repeat(256), 'has 256 characters'],
    ['holding a space', 'two words', 'holds a space'],
    ['holding a tab', 'tab\there', 'holds a space'],
    ['holding a character outside ASCII', 'clé', 'holds .* outside ASCII'],
  ])('when the key is %s, then 400 invalid_parameter naming the header, and nothing is created or stored', async (_case, key, problem) => {
    const [pets0, records0] = [await fixture.pets.countPets(), await fixture.store.countRecords()];
    const refused = await post(REX, key);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ code: 'invalid_parameter', status: 400, message: expect.stringMatching(new RegExp(`^Idempotency-Key ${problem}.*1 to 255 visible ASCII`)) });
    expect([await fixture.pets.countPets(), await fixture.store.countRecords()]).toEqual([pets0, records0]);
  });

  it('when the key has 255 visible ASCII characters, punctuation included, then it is accepted', async () => {
    const key = `${'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'}${'x'.repeat(255 - 32)}`;
    expect(key).toHaveLength(255);
    expect((await post(REX, key)).status).toBe(201);
    expect((await post(REX, key)).headers['idempotent-replayed']).toBe('true');
  });

  it('when a list is asked with an Idempotency-Key, then the header is ignored', async () => {
    const listed = await request(fixture.pets.app).get('/pets').set('Authorization', fixture.pets.auth).set('Idempotency-Key', 'not for reads, even if malformed');
    expect(listed.status).toBe(200);
  });
});
