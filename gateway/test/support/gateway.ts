import request from 'supertest';
import { createLogger } from '../../../shared/src/logger';
import { loadGatewayConfig } from '../../src/config';
import { createGateway, type Gateway, type GatewayDeps } from '../../src/gateway';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
const logger = createLogger('gateway-test', 'silent');

/**
 * A whole gateway in process (`createGateway`, the in-process store and limiter unless REDIS_URL
 * is given), configured from `env` as main.ts would be. TRUST_PROXY=loopback lets a test be any
 * client address through X-Forwarded-For. Nothing listens on PETS_URL: tests stay in front of the proxy.
 * `deps`: what main.ts would not give, e.g. the portal's tuning (cheaper hashes, shorter sessions), or a logger to read.
 */
export async function startGateway(env: Record<string, string> = {}, deps: Partial<GatewayDeps> = {}): Promise<Gateway> {
  const config = loadGatewayConfig({
    INTERNAL_JWT_SECRET: 'test-internal-secret-0123456789abcdef',
    ADMIN_TOKEN,
    TRUST_PROXY: 'loopback',
    PETS_URL: 'http://127.0.0.1:9',
    ...env,
  });
  return createGateway(config, { logger, ...deps });
}

/** A Free account and one key of it, through the gateway's own account service. */
export async function createKey(gateway: Gateway, plan: 'free' | 'pro' = 'free'): Promise<{ accountId: string; keyId: string; key: string }> {
  const account = await gateway.accounts.createAccount({ name: 'Test', plan });
  const created = await gateway.accounts.createKey(account.id);
  return { accountId: account.id, keyId: created.id, key: created.key };
}

/** One public request from client `ip` (through the trusted loopback proxy), with `key` if given. */
export function publicGet(gateway: Gateway, path: string, ip: string, key?: string): request.Test {
  const req = request(gateway.publicApp).get(path).set('X-Forwarded-For', ip);
  return key === undefined ? req : req.set('Authorization', `Bearer ${key}`);
}

/** The rate-limit headers of a response, as numbers where they are numbers. */
export function limitsOf(res: request.Response): { limit: number; remaining: number; policy: string } {
  return { limit: Number(res.headers['x-ratelimit-limit']), remaining: Number(res.headers['x-ratelimit-remaining']), policy: String(res.headers['ratelimit-policy']) };
}
