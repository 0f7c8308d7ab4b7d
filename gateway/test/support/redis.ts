import { TestRedis, type TestRedisOptions } from '../../../test/helpers/redis-server';
import { TestRedisCluster } from '../../../test/helpers/redis-cluster';
import { connectCluster, connectRedis, endConnection, type Cluster, type Redis } from '../../src/redis';

/** What a test opens on the server: a store, a limiter, a gateway, a board (`close`) or a connection (`disconnect`). */
type Closable = { close(): unknown } | { disconnect(): unknown };

/**
 * The gateway tests' one Redis fixture: a real redis-server for the enclosing file or `describe`
 * (started before its first test, stopped after its last), and whatever the tests open on it
 * through `connection` or `closeAfter`, closed before the server stops (last opened, first closed).
 * Call it at the top level of a test file or of a `describe`.
 */
export function useRedis(options: TestRedisOptions = {}) {
  let server: TestRedis | undefined;
  const opened: Closable[] = [];

  const closeOpened = async (): Promise<void> => {
    for (const thing of opened.splice(0).reverse()) await ('close' in thing ? thing.close() : thing.disconnect());
  };

  beforeAll(async () => {
    server = await TestRedis.start(options);
  });
  afterAll(async () => {
    await closeOpened();
    await server?.stop();
  });

  return {
    get server(): TestRedis {
      if (!server) throw new Error('the Redis fixture starts its server in beforeAll');
      return server;
    },
    get url(): string {
      return this.server.url;
    },
    /** A connection of its own, as the gateway opens it (`connectRedis`), closed after the file or `closeOpened`. */
    async connection(waitMs = 300): Promise<Redis> {
      return this.closeAfter(await connectRedis(this.url, waitMs));
    },
    /** Closes `thing` with the fixture (after the file, or at `closeOpened`). */
    closeAfter<T extends Closable>(thing: T): T {
      opened.push(thing);
      return thing;
    },
    /** Closes what was opened so far, e.g. in an afterEach, so each test starts with nothing open. */
    closeOpened,
    /** The server running (again, if a test stopped it) and empty. */
    async reset(): Promise<void> {
      await this.server.start();
      await this.server.flushAll();
    },
  };
}

/**
 * How long a test waits for a Cluster connection to be ready (the gateway's own wait is 2 s, then it
 * starts degraded): a loaded machine's cluster can take longer to say `cluster_state:ok` to
 * ioredis's ready check, and `connectCluster` returns as soon as it does.
 */
export const CLUSTER_READY_WAIT_MS = 30_000;

/**
 * The same for a real three-master Redis Cluster (`TestRedisCluster`): started before the enclosing
 * file's or `describe`'s first test (a few seconds), stopped after its last. Call it at the top level
 * of a test file or of a `describe`; read `cluster` inside hooks and tests.
 */
export function useRedisCluster() {
  let started: TestRedisCluster | undefined;
  const opened: Cluster[] = [];
  beforeAll(async () => {
    started = await TestRedisCluster.start();
  }, 30_000);
  afterAll(async () => {
    for (const client of opened.splice(0).reverse()) await endConnection(client, { graceful: false });
    await started?.stop();
  });
  return {
    get cluster(): TestRedisCluster {
      if (!started) throw new Error('the Redis Cluster fixture starts its cluster in beforeAll');
      return started;
    },
    /** A connection to the cluster, as the gateway opens it (`connectCluster`), closed before the cluster stops. */
    async connection(): Promise<Cluster> {
      const client = await connectCluster(this.cluster.addresses, CLUSTER_READY_WAIT_MS);
      opened.push(client);
      return client;
    },
    /** The same, to the cluster emptied first. */
    async emptyConnection(): Promise<Cluster> {
      await this.cluster.flushAll();
      return this.connection();
    },
  };
}
