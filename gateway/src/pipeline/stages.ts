import type { ErrorRequestHandler, RequestHandler } from 'express';
import { inOrder } from '../../../shared/src/in-order';
import type { InterfaceDescription } from '../../../shared/src/openapi';
import type { GatewayConfig } from '../config';
import { operatorStages } from '../extensions/operator-middleware';
import { absoluteLinks } from '../links/public-links';
import type { PetsProxy } from '../upstream/pets-proxy';
import { authorize } from './authorize';
import { browserAccess } from './cors';
import { markDeprecated } from './deprecation';
import { identify, type IdentifyOptions } from './identify';
import { INTERFACE_DESCRIPTION_PATH, serveInterfaceDescription } from './interface-description';
import type { V1Locals } from './locals';
import { proxyToPets } from './proxy';
import { rateLimit, type RateLimitOptions } from './rate-limit';
import { readBody } from './read-body';
import { requestPathsOf } from './route-path';
import { route } from './route';
import { internalAuthorization } from './sign-internal-token';

/** One `/v1` stage, and what it tells the others on `res.locals`. */
export interface V1Stage {
  /** Its name, as docs/architecture.md lists it (a unit test holds the page to this list). */
  readonly name: string;
  /** Mounted on this path under `/v1` only (any method); absent: on every request. */
  readonly path?: string;
  /** Its middleware, in order; none when its setting is off, and then nothing is mounted. */
  readonly middleware: readonly RequestHandler[];
  /** The `res.locals` fields (`pipeline/locals.ts`) it reads, and those it sets. */
  readonly reads: readonly (keyof V1Locals)[];
  readonly writes: readonly (keyof V1Locals)[];
}

export interface V1StageOptions {
  config: Pick<GatewayConfig, 'bodyTimeoutMs' | 'internalJwtSecret' | 'trustProxy' | 'apiEnvironment' | 'publicBaseUrl' | 'corsOrigins' | 'preflightPerMinute' | 'anonIpv6PrefixLength'>;
  keys: IdentifyOptions['keys'];
  lookups: IdentifyOptions['lookups'];
  limits: RateLimitOptions;
  document: InterfaceDescription;
  petsProxy: PetsProxy;
  /** The operator's own middleware (`GATEWAY_MIDDLEWARE`, docs/extending.md), in order. */
  operatorMiddleware: readonly RequestHandler[];
}

const optional = (middleware: RequestHandler | undefined): RequestHandler[] => (middleware ? [middleware] : []);

/**
 * The `/v1` stages in the order they run: the one statement of that order (app.ts mounts this
 * list as one middleware, `v1Pipeline`; docs/architecture.md describes it, checked by
 * stages.test.ts). A stage whose setting is off has no middleware. Every refusal after
 * `rate limit` carries the rate-limit headers.
 */
export function v1Stages({ config, keys, lookups, limits, document, petsProxy, operatorMiddleware }: V1StageOptions): readonly V1Stage[] {
  return [
    { name: 'absolute links', middleware: optional(absoluteLinks(config.publicBaseUrl)), reads: [], writes: [] },
    // routeOf matches the route on first use: here, for every request.
    { name: 'deprecation', middleware: [markDeprecated], reads: [], writes: ['route'] },
    // After the deprecation headers (a preflight of the deprecated path carries them too), before
    // identity: a preflight needs no key and costs no quota.
    { name: 'browsers', middleware: optional(browserAccess(config.corsOrigins, { perMinute: config.preflightPerMinute, ipv6PrefixLength: config.anonIpv6PrefixLength })), reads: [], writes: [] },
    {
      name: 'identify',
      middleware: [identify({ keys, lookups, environment: config.apiEnvironment, anonIpv6PrefixLength: config.anonIpv6PrefixLength })],
      reads: [],
      writes: ['principal', 'identityRefusal'],
    },
    { name: 'rate limit', middleware: [rateLimit(limits)], reads: ['principal'], writes: [] },
    // The interface description is public: rate limited like everything under /v1, but no key needed.
    { name: 'authorize', middleware: [authorize([INTERFACE_DESCRIPTION_PATH])], reads: ['principal', 'identityRefusal'], writes: [] },
    { name: 'interface description', path: INTERFACE_DESCRIPTION_PATH, middleware: [serveInterfaceDescription(document)], reads: [], writes: [] },
    { name: "the operator's middleware", middleware: operatorStages(operatorMiddleware), reads: ['principal'], writes: ['apiKey'] },
    { name: 'route', middleware: [route], reads: ['route'], writes: [] },
    { name: 'read body', middleware: [readBody({ timeoutMs: config.bodyTimeoutMs })], reads: [], writes: ['body'] },
    {
      name: 'proxy',
      middleware: [proxyToPets({ petsProxy, trustForwarded: config.trustProxy !== false, internalAuthorization: internalAuthorization(config.internalJwtSecret) })],
      reads: ['route', 'principal', 'body'],
      writes: [],
    },
  ];
}

/**
 * The stages as one middleware, mounted at `/v1`: they run in order inside one layer of the app
 * (`inOrder`), not as a router with a layer each (issue 29). A stage with a `path` runs on that
 * path only, matched as the router would match it (`requestPathsOf`). `answerError`, the app's
 * error handler, answers a stage's error from this layer (`inOrder`).
 */
export function v1Pipeline(stages: readonly V1Stage[], answerError?: ErrorRequestHandler): RequestHandler {
  return inOrder(
    stages.flatMap(({ path, middleware }) => (path === undefined || middleware.length === 0 ? middleware : [onPath(path, inOrder(middleware))])),
    answerError,
  );
}

function onPath(path: string, middleware: RequestHandler): RequestHandler {
  const paths = new Set(requestPathsOf(path));
  return (req, res, next) => {
    if (paths.has(req.path)) middleware(req, res, next);
    else next();
  };
}
