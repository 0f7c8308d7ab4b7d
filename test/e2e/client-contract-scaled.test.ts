import { startPetsReplicas, type PetsReplicas } from '../helpers/pets-replicas';
import { createTestDatabase, describeIfPostgres, type TestDatabase } from '../helpers/postgres';
import { startSystem, type SystemHandle } from '../helpers/system';
import { clientContract } from './client-contract';

/**
 * The same client contract on the scaled deployment: two pets-service replicas on one PostgreSQL
 * database (DATABASE_URL), two gateways on a three-master Redis Cluster (REDIS_CLUSTER_NODES), each
 * gateway spreading over both pets replicas (a PETS_URL list).
 */
describeIfPostgres()('the client contract on PostgreSQL, Redis Cluster and two replicas of each service', () => {
  let database: TestDatabase;
  let pets: PetsReplicas;
  let system: SystemHandle;

  beforeAll(async () => {
    database = await createTestDatabase('contract');
    pets = await startPetsReplicas({ databaseUrl: database.url, count: 2 });
    system = await startSystem({ redisCluster: true, replicas: 2, petsUrl: pets.petsUrl });
  }, 60_000);
  afterAll(async () => {
    await system?.stop();
    await pets?.stop();
    await database?.drop();
  }, 30_000);

  it('when it is up, then every gateway reports the cluster and the pets-service URL list', async () => {
    for (const gateway of system.gateways) {
      const readiness = (await (await fetch(`${gateway.url}/readyz`)).json()) as { rateLimiter: string };
      expect(readiness.rateLimiter).toBe('redis-cluster');
    }
    expect(pets.petsUrl.split(',')).toHaveLength(2);
  });

  clientContract(() => ({ gateways: system.gateways.map((g) => g.url), adminUrl: system.gateways[0]!.adminUrl }));
});
