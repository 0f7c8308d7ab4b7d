import request from 'supertest';
import { GET_PET_DEPRECATION_HEADERS } from '../../shared/src/pets';
import { describeEachEngine, startTestService, type TestPetsService } from './support';

let pets: TestPetsService;

const get = (path: string) => request(pets.app).get(path).set('Authorization', pets.auth);

function expectDeprecationHeaders(res: request.Response): void {
  for (const [name, value] of Object.entries(GET_PET_DEPRECATION_HEADERS)) expect(res.headers[name.toLowerCase()]).toBe(value);
}

describeEachEngine('GET /pets/{petId} (deprecated)', (engine) => {
  beforeAll(async () => {
    pets = await startTestService({ engine });
    await pets.seed([{ name: 'Rex', categoryId: 2, status: 'sold' }]);
  });
  afterAll(() => pets.close());

  it('when the pet exists, then 200 returns it', async () => {
    const res = await get('/pets/1');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 1, name: 'Rex', categoryId: 2, status: 'sold' });
  });

  it('when no pet has that id, then 404 not_found', async () => {
    const res = await get('/pets/2');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'not_found', status: 404, message: expect.stringContaining('2') });
  });

  it('when the largest safe id has no pet, then 404 rather than an error', async () => {
    expect((await get(`/pets/${Number.MAX_SAFE_INTEGER}`)).status).toBe(404);
  });

  it.each(['abc', '0', '-1', '1.5', '01', '+1', '1e3', '%201', '9007199254740992', '99999999999999999999999', '%E0'])(
    'when petId is %j, then 400 invalid_parameter names petId or the path',
    async (petId) => {
      const res = await get(`/pets/${petId}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_parameter');
      expect(res.body.message).toMatch(/petId|path/);
    },
  );

  it('when answering with any status, then the deprecation headers are present', async () => {
    const responses = [
      await get('/pets/1'),
      await get('/pets/abc'),
      await get('/pets/%E0'),
      await get('/pets/404'),
      await get('/PETS/1/'),
      await request(pets.app).get('/pets/1'),
      await request(pets.app).delete('/pets/1').set('Authorization', pets.auth),
      await request(pets.app).head('/pets/1').set('Authorization', pets.auth),
    ];
    expect(responses.map((res) => res.status)).toEqual([200, 400, 400, 404, 200, 401, 405, 200]);
    responses.forEach(expectDeprecationHeaders);
  });

  it('when another path is answered, then it carries no deprecation headers', async () => {
    const res = await get('/pets');
    expect(res.headers.deprecation).toBeUndefined();
    expect(res.headers.sunset).toBeUndefined();
  });
});
