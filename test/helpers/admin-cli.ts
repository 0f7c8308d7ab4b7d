import { execFile } from 'node:child_process';
import type { Server } from 'node:http';
import { createLogger } from '../../shared/src/logger';
import type { MemoryAccountStore } from '../../gateway/src/accounts/memory-account-store';
import { createAdminApp } from '../../gateway/src/admin/app';
import { opsParts } from '../../gateway/test/support/ops';
import { freePort } from './ports';
import { COMPILED, ROOT } from './processes';
import { SHARED_TOKEN_ACTOR } from '../../gateway/src/admin/tokens';
import { EventBus } from '../../gateway/src/events/event-bus';
import { MemoryJobQueues } from '../../gateway/src/jobs/memory-queues';
import { createWebhooks } from '../../gateway/src/webhooks';
import { MemoryWebhookStore } from '../../gateway/src/webhooks/memory-webhook-store';

export const CLI_ADMIN_TOKEN = 'cli-test-admin-token-0123456789';
export const CLI_SECRET = 'cli-test-internal-secret-0123456789';
/** A named operator's token (ADMIN_TOKENS), for the audit trail's "who". */
export const ALICE = 'alice-cli-token-0123456789';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  json: () => any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * The compiled admin CLI (built by jest's globalSetup) against an admin app this file serves on a
 * free port, over the in-process ops use cases (`opsParts`): a test reaches their store, limiter and
 * usage board to check what a command did, or to make traffic. Call at the top level of a test file.
 */
export function useAdminCli() {
  // Every command is a Node process of its own and a test runs up to a dozen: in two suites side by
  // side on a slow machine one test took over 30 s (jest's default here).
  jest.setTimeout(180_000);
  const parts = opsParts({ ban: { threshold: 3, seconds: 900 } });
  const logger = createLogger('cli-test', 'silent');
  // The webhook routes over in-process parts, delivering to http:// receivers on 127.0.0.1.
  const jobs = new MemoryJobQueues();
  const webhooks = createWebhooks({
    config: { webhookAllowPrivate: true, webhookRetryDelaysMs: [100] },
    store: new MemoryWebhookStore(),
    jobs,
    events: new EventBus(),
    audit: parts.audit,
    requireAccount: (id) => parts.service.getAccount(id),
    logger,
  });
  let server: Server | undefined;
  let adminUrl = '';

  beforeAll(async () => {
    const app = createAdminApp({
      service: parts.service,
      reports: parts.reports,
      adminTokens: [
        { name: SHARED_TOKEN_ACTOR, token: CLI_ADMIN_TOKEN },
        { name: 'alice', token: ALICE },
      ],
      logger,
      webhooks: webhooks.service,
    });
    const port = await freePort();
    adminUrl = `http://127.0.0.1:${port}`;
    await new Promise<void>((resolve) => {
      server = app.listen(port, '127.0.0.1', () => resolve());
    });
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    webhooks.close();
    await jobs.close();
  });

  /** Runs the CLI with `args`; `env` adds to or (undefined) removes from its environment. Asynchronous on purpose: the admin app answering it lives in this very process. */
  function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [COMPILED.adminCli, ...args],
        { cwd: ROOT, env: { PATH: process.env.PATH, ADMIN_URL: adminUrl, ADMIN_TOKEN: CLI_ADMIN_TOKEN, INTERNAL_JWT_SECRET: CLI_SECRET, ...env } as NodeJS.ProcessEnv },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
          resolve({ code, stdout, stderr, json: () => JSON.parse(stdout) });
        },
      );
    });
  }

  return { store: parts.store as MemoryAccountStore, limiter: parts.limiter, board: parts.board, cli };
}
