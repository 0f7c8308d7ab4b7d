import type { Logger } from 'pino';

/**
 * What a service does with an error thrown where nothing can catch it (a timer or an event handler,
 * typically of an operator's middleware, outside any request) or a promise rejected with no handler:
 * it is logged through pino, with its stack, and the process keeps serving (docs/security.md,
 * "Hostile clients"). Node's default is to exit, and an error a client can provoke would then take
 * every client's requests down with it, again and again; no request is cut short by logging instead.
 * The state such an error could leave half-changed is the one callback's: the services keep shared
 * state in stores whose writes are atomic, and their own timers catch their own errors. Installed
 * once per process, by the entry points (`gateway/src/main.ts`, `pets-service/src/main.ts`).
 */
export function keepServingThroughStrayErrors(logger: Logger, processName: string): void {
  process.on('uncaughtException', (err, origin) => {
    logger.error({ err, origin }, `${processName}: an error nobody caught (outside any request); logged, the process keeps serving`);
  });
  process.on('unhandledRejection', (reason) => {
    logger.error({ err: reason }, `${processName}: a promise was rejected with nothing to handle it; logged, the process keeps serving`);
  });
}
