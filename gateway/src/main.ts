/**
 * The gateway's composition root: configuration, Redis (or the in-process default), stores,
 * limiter, metrics and logger, the public app and the admin app, each on its own port.
 */
import { createServer, type Server } from 'node:http';
import { createLogger } from '../../shared/src/logger';
import { answerUnparseableRequests } from '../../shared/src/client-errors';
import { loadOrExit } from '../../shared/src/env';
import { AccountService } from './accounts/account-service';
import { MemoryAccountStore } from './accounts/memory-account-store';
import { PrincipalResolver } from './accounts/principal-resolver';
import { RedisAccountStore } from './accounts/redis-account-store';
import type { AccountStore } from './accounts/types';
import { createAdminApp } from './admin/app';
import { createApp } from './app';
import { loadGatewayConfig, type GatewayConfig } from './config';
import { createLimiter } from './limits';
import { createMetrics } from './metrics';
import { connectRedis, createSubscriber, type Redis } from './redis';

async function main(): Promise<void> {
  const config = loadOrExit(() => loadGatewayConfig(process.env), 'gateway');
  const logger = createLogger('gateway', config.logLevel);

  let redis: Redis | undefined;
  let store: AccountStore;
  if (config.redisUrl) {
    redis = await connectRedis(config.redisUrl);
    const redisStore = new RedisAccountStore({ redis, subscriber: createSubscriber(config.redisUrl) });
    await Promise.race([redisStore.whenSubscribed(), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
    store = redisStore;
    if (redis.status !== 'ready') logger.warn({ redis: redactUrl(config.redisUrl) }, 'Redis is not reachable yet: limiting in-process until it is');
  } else {
    logger.warn('REDIS_URL is not set: accounts, keys and rate limits are kept in this process only; limits are per process and nothing survives a restart');
    store = new MemoryAccountStore();
  }

  const limiter = createLimiter({
    redis,
    logger,
    ban: { threshold: config.banThreshold, seconds: config.banSeconds },
  });
  const metrics = createMetrics({ isDegraded: () => limiter.degraded });
  const keys = new PrincipalResolver({ store, onQuotaChange: (accountId) => accountId && limiter.forgetAccount(accountId) });
  store.onChange((event) => {
    if (event.type === 'ban-lifted') limiter.liftBan(event.keyId).catch((err: unknown) => logger.warn({ err }, 'could not lift a ban locally'));
  });
  const accounts = new AccountService({ store, limiter });

  const publicServer = createServer(createApp({ config, logger, keys, limiter, metrics }));
  const adminServer = createServer(
    createAdminApp({
      service: accounts,
      adminToken: config.adminToken,
      logger,
      extraRoutes: (app, { requireAdmin }) => app.get('/metrics', requireAdmin, metrics.handler),
    }),
  );
  answerUnparseableRequests(publicServer);
  answerUnparseableRequests(adminServer);
  await listen(publicServer, config.port, config.host);
  await listen(adminServer, config.adminPort, config.adminHost);
  logger.info({ port: config.port, adminPort: config.adminPort, rateLimiter: limiter.mode }, 'gateway listening');

  const demoKey = !config.production && !config.redisUrl ? await createDemoKey(accounts) : undefined;
  printWelcome(config, demoKey);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'gateway stopping');
    setTimeout(() => process.exit(1), 10_000).unref();
    Promise.all([close(publicServer), close(adminServer)])
      .then(() => Promise.all([limiter.close(), keys.close(), store.close()]))
      .then(() => redis?.quit())
      .catch((err: unknown) => logger.error({ err }, 'error while stopping'))
      .finally(() => process.exit(0));
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

async function createDemoKey(accounts: AccountService): Promise<string> {
  const account = await accounts.createAccount({ name: 'Demo', plan: 'free' });
  return (await accounts.createKey(account.id)).key;
}

function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/** A human-readable start banner: where things are, and (outside production) how to try them. */
function printWelcome(config: GatewayConfig, demoKey: string | undefined): void {
  const publicHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const base = `http://${publicHost}:${config.port}`;
  const lines = [
    '',
    `Animal Store gateway ready (${config.redisUrl ? 'Redis' : 'in-process store'})`,
    `  public API   ${base}/v1    docs ${base}/docs`,
    `  admin API    http://${config.adminHost}:${config.adminPort}/admin`,
  ];
  if (config.adminTokenGenerated) {
    lines.push(`  admin token  ${config.adminToken}   (generated for this run; set ADMIN_TOKEN to choose one)`);
    lines.push(`               export ADMIN_TOKEN=${config.adminToken}   # then: npm run admin -- --help`);
  }
  if (demoKey) {
    lines.push(`  demo API key ${demoKey}   (account "Demo", Free plan: 60/min, 1,000/day)`);
    lines.push('', '  Try it:', `    curl -i -H "Authorization: Bearer ${demoKey}" ${base}/v1/pets`);
    lines.push(
      `    curl -i -H "Authorization: Bearer ${demoKey}" -H "Content-Type: application/json" -d '{"name":"Rex","categoryId":1}' ${base}/v1/pets`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`gateway failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
