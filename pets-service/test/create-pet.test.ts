import request from 'supertest';
import { MAX_CATEGORY_ID } from '../../shared/src/openapi';
import { describeEachEngine, startTestService, type TestPetsService } from './support';

let pets: TestPetsService;

/**
 * Sends exactly these bytes: as a Buffer, supertest adds no content type of its own, and the
 * identity serializer keeps it from re-encoding the Buffer as JSON.
 */
function post(body: string | Buffer | undefined, contentType: string | null = 'application/json') {
  const req = request(pets.app).post('/pets').set('Authorization', pets.auth);
  if (contentType !== null) req.set('Content-Type', contentType);
  if (body === undefined) return req;
  return req.serialize((bytes: Buffer) => bytes as unknown as string).send(Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'));
}

const postJson = (value: unknown) => post(JSON.stringify(value));

const storedCount = () => pets.countPets();

describeEachEngine('POST /pets', (engine) => {
  beforeAll(async () => {
    pets = await startTestService({ engine });
  });
  afterAll(() => pets.close());

  describe('POST /pets, success', () => {
    it('when the body is a valid pet, then 201 returns the pet with its id and a Location', async () => {
      const res = await postJson({ name: 'Rex', categoryId: 3, status: 'pending' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 3, status: 'pending' });
      expect(res.headers.location).toBe(`/pets/${res.body.id}`);
      const fetched = await request(pets.app).get(res.headers.location!).set('Authorization', pets.auth);
      expect(fetched.body).toEqual(res.body);
    });

    it('when called through the gateway, then Location carries the /v1 prefix', async () => {
      const res = await postJson({ name: 'Rex', categoryId: 3 }).set('X-Forwarded-Prefix', '/v1');
      expect(res.headers.location).toBe(`/v1/pets/${res.body.id}`);
    });

    it('when status is omitted, then it is available', async () => {
      const res = await postJson({ name: 'Bella', categoryId: 1 });
      expect(res.status).toBe(201);
      expect(res.body.status).toBe('available');
    });

    it('when the values sit on their bounds, then they are accepted and stored exactly', async () => {
      const res = await postJson({ name: '🐶'.repeat(100), categoryId: MAX_CATEGORY_ID });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ name: '🐶'.repeat(100), categoryId: MAX_CATEGORY_ID });
    });

    it('when the content type has parameters or another case, then it is still JSON', async () => {
      expect((await post('{"name":"a","categoryId":1}', 'application/json; charset=utf-8')).status).toBe(201);
      expect((await post('{"name":"a","categoryId":1}', 'Application/JSON; Charset="UTF-8"')).status).toBe(201);
    });

    it('when the body is exactly 16 KiB, then it is accepted', async () => {
      const json = '{"name":"padded","categoryId":1}';
      expect((await post(json.padEnd(16 * 1024, ' '))).status).toBe(201);
    });

    it('when pets are created one after another, then ids increase', async () => {
      const first = await postJson({ name: 'one', categoryId: 1 });
      const second = await postJson({ name: 'two', categoryId: 1 });
      expect(second.body.id).toBeGreaterThan(first.body.id);
    });
  });

  describe('POST /pets, refused', () => {
    it.each([
      ['name is missing', 'name', { categoryId: 1 }],
      ['categoryId is missing', 'categoryId', { name: 'Rex' }],
      ['name is empty', 'name', { name: '', categoryId: 1 }],
      ['name is only white space', 'name', { name: ' \t\n ', categoryId: 1 }],
      ['name has 101 characters', 'name', { name: 'a'.repeat(101), categoryId: 1 }],
      ['name is a number', 'name', { name: 5, categoryId: 1 }],
      ['name is null', 'name', { name: null, categoryId: 1 }],
      ['categoryId is a string', 'categoryId', { name: 'Rex', categoryId: '1' }],
      ['categoryId is a fraction', 'categoryId', { name: 'Rex', categoryId: 1.5 }],
      ['categoryId is 0', 'categoryId', { name: 'Rex', categoryId: 0 }],
      ['categoryId is negative', 'categoryId', { name: 'Rex', categoryId: -1 }],
      ['categoryId is beyond 2^53-1', 'categoryId', { name: 'Rex', categoryId: 2 ** 53 }],
      ['categoryId is null', 'categoryId', { name: 'Rex', categoryId: null }],
      ['status is null', 'status', { name: 'Rex', categoryId: 1, status: null }],
      ['status is unknown', 'status', { name: 'Rex', categoryId: 1, status: 'lost' }],
      ['an id is sent', 'id', { id: 4, name: 'Rex', categoryId: 1 }],
      ['an unknown field is sent', 'colour', { name: 'Rex', categoryId: 1, colour: 'brown' }],
      ['the body is an array', 'body', [{ name: 'Rex', categoryId: 1 }]],
      ['the body is a string', 'body', 'Rex'],
      ['the body is null', 'body', null],
      ['the body is a number', 'body', 42],
    ])('when %s, then 400 invalid_body names %s', async (_case, field, body) => {
      const res = await postJson(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'invalid_body', status: 400, message: expect.stringContaining(field) });
    });

    it('when the body is empty, then 400 invalid_body says a body is required', async () => {
      for (const res of [await post(''), await post(undefined), await post('   \n')]) {
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('invalid_body');
        expect(res.body.message).toMatch(/body is required/);
      }
    });

    it.each([
      ['missing', null],
      ['text/plain', 'text/plain'],
      ['form data', 'application/x-www-form-urlencoded'],
      ['a JSON-like other type', 'application/json-patch+json'],
      ['a prefix of the type', 'application/jsonx'],
      ['a non-UTF-8 charset', 'application/json; charset=latin1'],
    ])('when the content type is %s, then 415 unsupported_media_type', async (_case, contentType) => {
      const res = await post('{"name":"Rex","categoryId":1}', contentType);
      expect(res.status).toBe(415);
      expect(res.body).toEqual({ code: 'unsupported_media_type', status: 415, message: expect.any(String) });
    });

    it('when the content type is wrong, then it is refused before the body is read or parsed', async () => {
      expect((await post('x'.repeat(17 * 1024), 'text/plain')).status).toBe(415);
      expect((await post('{not json', 'text/plain')).status).toBe(415);
    });

    it('when the body is 17 KiB, then 413 payload_too_large', async () => {
      const res = await post(JSON.stringify({ name: 'big', categoryId: 1, padding: 'x'.repeat(17 * 1024) }));
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ code: 'payload_too_large', status: 413, message: expect.stringContaining('16 KiB') });
    });

    it.each([
      ['a cut-off object', '{"name":"Rex",'],
      ['unquoted keys', '{name: "Rex", categoryId: 1}'],
      ['a trailing comma', '{"name":"Rex","categoryId":1,}'],
      ['two values', '{"name":"Rex","categoryId":1} {}'],
    ])('when the body is %s, then 400 malformed_json', async (_case, body) => {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'malformed_json', status: 400, message: expect.any(String) });
    });

    it('when the body is not valid UTF-8, then 400 malformed_json', async () => {
      const res = await post(Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc3, 0x28]), Buffer.from('","categoryId":1}')]));
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('malformed_json');
    });

    it('when a create is refused for any reason, then nothing is stored', async () => {
      const before = await storedCount();
      await postJson({ name: 'Rex', categoryId: 1, id: 99 });
      await postJson({ name: '', categoryId: 1 });
      await post('{"name":"Rex","categoryId":1}', 'text/plain');
      await post('{"name":"Rex"');
      await post(JSON.stringify({ name: 'Rex', categoryId: 1, pad: 'x'.repeat(17 * 1024) }));
      await request(pets.app).post('/pets').set('Content-Type', 'application/json').send('{"name":"Rex","categoryId":1}');
      expect(await storedCount()).toBe(before);
    });
  });

  describe('POST /pets with control characters in the name', () => {
    it.each([
      ['only a NUL', '\u0000'],
      ['a NUL inside', 'Re\u0000x'],
      ['a tab', 'Rex\tthe dog'],
      ['a line feed', 'Rex\n'],
      ['an escape', '\u001b[31mRex'],
      ['U+001F', 'Rex\u001f'],
      ['DEL (U+007F)', 'Rex\u007f'],
    ])('when the name holds %s, then 400 invalid_body names name and control characters, and nothing is stored', async (_case, name) => {
      const before = await storedCount();
      const res = await postJson({ name, categoryId: 1 });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'invalid_body', status: 400, message: 'name must not contain control characters (U+0000–U+001F, U+007F).' });
      expect(await storedCount()).toBe(before);
    });

    it('when the NUL is sent as raw JSON escape text, then it is refused the same way', async () => {
      const res = await post('{"name":"\\u0000","categoryId":1}');
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^name must not contain control characters/);
    });

    it('when the name holds characters just past the control ranges, then they are stored exactly', async () => {
      const name = 'Rex \u0080\u00a0\u2028 é';
      const res = await postJson({ name, categoryId: 1 });
      expect(res.status).toBe(201);
      expect(res.body.name).toBe(name);
    });
  });

  describe('POST /pets with text that is not Unicode', () => {
    it('when the name holds a lone surrogate, then 400 invalid_body and nothing is stored', async () => {
      const before = await storedCount();
      const res = await post('{"name":"\\ud800","categoryId":1}');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'invalid_body', message: expect.stringContaining('not valid Unicode'), status: 400 });
      expect(await storedCount()).toBe(before);
    });

    it('when the name escapes a proper surrogate pair, then it is stored as that character', async () => {
      const res = await post('{"name":"\\ud83d\\udc36","categoryId":1}');
      expect(res.status).toBe(201);
      expect(res.body.name).toBe('🐶');
    });

    it('when the body is compressed, then 415 unsupported_media_type rather than an attempt to inflate it', async () => {
      const res = request(pets.app).post('/pets').set('Authorization', pets.auth).set('Content-Type', 'application/json').set('Content-Encoding', 'gzip');
      const answer = await res.serialize((bytes: Buffer) => bytes as unknown as string).send(Buffer.from('{"name":"Rex","categoryId":1}'));
      expect(answer.status).toBe(415);
      expect(answer.body.code).toBe('unsupported_media_type');
    });
  });
});
