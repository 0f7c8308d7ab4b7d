import { COMPILED, ServiceProcess, spawnOnFreePorts } from './processes';
import { TEST_SECRET } from './system';

export interface PetsReplica {
  readonly process: ServiceProcess;
  /** Base URL, e.g. http://127.0.0.1:PORT. */
  readonly url: string;
}

export interface PetsReplicas {
  readonly replicas: PetsReplica[];
  /** Every replica's base URL, comma-separated, as the gateway's `PETS_URL` takes a list. */
  readonly petsUrl: string;
  /** Stops every replica still running (SIGTERM by default). */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface PetsReplicasOptions {
  /** The PostgreSQL database every replica shares (`DATABASE_URL`). */
  databaseUrl: string;
  count?: number;
  env?: Record<string, string>;
}

/**
 * Several pets-service processes from the compiled build on one PostgreSQL database, started at the
 * same moment (so their start-up migrations race, as in a real rollout), each ready once `/healthz` answers.
 */
export async function startPetsReplicas({ databaseUrl, count = 2, env = {} }: PetsReplicasOptions): Promise<PetsReplicas> {
  const started = await Promise.allSettled(
    Array.from({ length: count }, () =>
      spawnOnFreePorts(1, async ([port = 0]) => {
        const child = ServiceProcess.spawn(COMPILED.pets, {
          PETS_PORT: String(port),
          DATABASE_URL: databaseUrl,
          INTERNAL_JWT_SECRET: TEST_SECRET,
          ...env,
        });
        const url = `http://127.0.0.1:${port}`;
        try {
          await child.ready(`${url}/healthz`);
        } catch (error) {
          await child.stop('SIGKILL');
          throw error;
        }
        return { process: child, url };
      }),
    ),
  );
  const replicas = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    await Promise.all(replicas.map((replica) => replica.process.stop(signal)));
  };
  const failed = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) {
    await stop('SIGKILL');
    throw failed.reason;
  }
  return { replicas, petsUrl: replicas.map((replica) => replica.url).join(','), stop };
}
