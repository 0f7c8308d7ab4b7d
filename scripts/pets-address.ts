import { isIP } from 'node:net';
import { PETS_LISTEN_DEFAULTS } from '../pets-service/src/config';

/**
 * Where `npm start`'s gateway finds the pets-service started beside it. The pets-service listens on
 * PETS_HOST:PETS_PORT; the gateway calls PETS_URL. Unless PETS_URL is set (the operator's choice
 * wins), it is derived from the first two, so `PETS_PORT=18182 npm start` is one system, not a
 * gateway calling the default port. A wildcard listen address is reached on loopback.
 */
export function petsAddressOf(env: NodeJS.ProcessEnv): { petsUrl: string; healthUrl: string } {
  const host = env.PETS_HOST?.trim() || PETS_LISTEN_DEFAULTS.host;
  const port = env.PETS_PORT?.trim() || String(PETS_LISTEN_DEFAULTS.port);
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  const origin = `http://${isIP(reachable) === 6 ? `[${reachable}]` : reachable}:${port}`;
  return { petsUrl: env.PETS_URL?.trim() || origin, healthUrl: `${origin}/healthz` };
}
