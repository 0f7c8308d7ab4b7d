/**
 * The gateway process: configuration, the gateway itself (`createGateway`), its two servers (the
 * public port and the admin port), the start banner and the stop on SIGTERM/SIGINT.
 */
// First: tracing starts before the modules it instruments are loaded.
import './tracing/preload';
import cluster from 'node:cluster';
import { loadOrExit, loadOrExitAsync } from '../../shared/src/env';
import { createDrainableServer, stopOnSignals, type ServerTimeouts } from '../../shared/src/http-server';
import { createAccessLogger, createLogger, logFormatOfStdout } from '../../shared/src/logger';
import { keepServingThroughStrayErrors } from '../../shared/src/stray-errors';
import type { AccountService } from './accounts/account-service';
import { BUILT_IN_PLANS, STARTER_PLAN, type PlanName } from './accounts/types';
import { STORE_KIND_NAMES, storeKindOf } from './backends';
import { loadGatewayConfig, redisTargetOf, type GatewayConfig } from './config';
import { loadOperatorMiddleware } from './extensions/load-middleware';
import { createGateway } from './gateway';
import { settleUrlParseDeprecation } from './upstream/url-parse-check';
import { announceReady, offerMetricsToPrimary, runPrimary, scrapeThroughPrimary } from './workers';

/**
 * Public and admin ports. Idle keep-alive connections are kept 5 s: long enough for a client's
 * next request, short enough that idle connections from many clients cost little. Headers must
 * arrive within 10 s; the body has its own deadline (BODY_TIMEOUT_MS), answered in the Error
 * shape, so Node's whole-request timeout is only a backstop behind it.
 */
function serverTimeouts(config: GatewayConfig): ServerTimeouts {
  return { headersTimeoutMs: 10_000, requestTimeoutMs: config.bodyTimeoutMs + 20_000, keepAliveTimeoutMs: 5_000 };
}

async function main(): Promise<void> {
  // http-proxy-middleware calls url.parse twice per proxied request; on Node 24 each call paid for a stack trace.
  settleUrlParseDeprecation();
  const config = loadOrExit(() => loadGatewayConfig(process.env), 'gateway');
  // Loaded by every process, the primary of several workers too: a module that cannot load stops
  // the start-up at once, naming it, instead of failing in each worker.
  const operatorMiddleware = await loadOrExitAsync(() => loadOperatorMiddleware(config.gatewayMiddleware), 'gateway');
  const logFormat = logFormatOfStdout(config.production);
  const logger = createLogger('gateway', config.logLevel, logFormat);
  keepServingThroughStrayErrors(logger, 'gateway');
  if (config.workers > 1 && cluster.isPrimary) {
    runPrimary({
      workers: config.workers,
      logger,
      // A generated admin token must be the same in every worker.
      env: config.adminTokenGenerated ? { ADMIN_TOKEN: config.adminToken } : {},
      onReady: () => printWelcome(config, `${STORE_KIND_NAMES[storeKindOf(redisTargetOf(config))]}, ${config.workers} workers`, undefined),
    });
    return;
  }
  const worker = cluster.isWorker;
  const gateway = await createGateway(config, {
    logger,
    accessLogger: createAccessLogger('gateway', config.logLevel, logFormat),
    operatorMiddleware,
    scrapeMetrics: worker ? scrapeThroughPrimary() : undefined,
  });
  if (worker) offerMetricsToPrimary(gateway.metrics.registry);

  // 100 Continue only once every check before the body has passed (the body reader sends it): the
  // key and the limits on /v1, the origin and the session on a portal form, the token on the admin API.
  const publicServer = createDrainableServer(gateway.publicApp, serverTimeouts(config), gateway, { continueByApplication: true });
  const adminServer = createDrainableServer(gateway.adminApp, serverTimeouts(config), gateway, { continueByApplication: true });
  await publicServer.listen(config.port, config.host);
  await adminServer.listen(config.adminPort, config.adminHost);
  logger.info({ port: config.port, adminPort: config.adminPort, rateLimiter: gateway.limiter.mode, ...(worker ? { worker: process.pid } : {}) }, 'gateway listening');

  if (worker) {
    // The primary prints the banner once every worker listens (no demo key: workers need Redis).
    announceReady();
  } else {
    // Development only: a production deployment never prints a working key.
    const demoKey = !config.production && gateway.storeKind === 'in-process' ? await createDemoKey(gateway.accounts) : undefined;
    printWelcome(config, STORE_KIND_NAMES[gateway.storeKind], demoKey);
  }

  stopOnSignals({
    name: 'gateway',
    logger,
    servers: [publicServer, adminServer],
    markDraining: () => {
      gateway.draining = true;
    },
    release: () => gateway.close(),
  });
}

async function createDemoKey(accounts: AccountService): Promise<string> {
  const account = await accounts.createAccount({ name: 'Demo', plan: STARTER_PLAN });
  return (await accounts.createKey(account.id)).key;
}

/** A human-readable start banner: where things are, and (outside production) how to try them. */
function printWelcome(config: GatewayConfig, storeKind: string, demoKey: string | undefined): void {
  const publicHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const base = `http://${publicHost}:${config.port}`;
  const lines = [
    '',
    `Animal Store gateway ready (${config.apiEnvironment}, ${storeKind})`,
    `  public API   ${base}/v1    docs ${base}/docs`,
    `  portal       ${base}/portal   (sign up, create keys, watch usage)`,
    `  admin API    http://${config.adminHost}:${config.adminPort}/admin    ops console http://${config.adminHost}:${config.adminPort}/console`,
  ];
  if (config.adminTokenGenerated) {
    lines.push(`  admin token  ${config.adminToken}   (generated for this run; set ADMIN_TOKEN to choose one)`);
    lines.push(`               export ADMIN_TOKEN=${config.adminToken}   # then: npm run admin -- --help`);
  }
  if (demoKey) {
    lines.push(`  demo API key ${demoKey}   (account "Demo", ${planSummary(STARTER_PLAN)}; a ${config.apiEnvironment} key)`);
    lines.push('', '  Try it:', `    curl -i -H "Authorization: Bearer ${demoKey}" ${base}/v1/pets`);
    lines.push(
      `    curl -i -H "Authorization: Bearer ${demoKey}" -H "Content-Type: application/json" -d '{"name":"Rex","categoryId":1}' ${base}/v1/pets`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
}

/** `Free plan: 60/min, 1,000/day`: a built-in plan as the banner describes it. */
function planSummary(name: PlanName): string {
  const plan = BUILT_IN_PLANS.find((candidate) => candidate.name === name)!;
  const count = (n: number | null) => (n === null ? 'its own' : n.toLocaleString('en-US'));
  return `${name[0]!.toUpperCase()}${name.slice(1)} plan: ${count(plan.perMinute)}/min, ${count(plan.perDay)}/day`;
}

main().catch((error: unknown) => {
  process.stderr.write(`gateway failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
