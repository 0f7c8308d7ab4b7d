import express, { type Express, type RequestHandler } from 'express';
import { ApiError, errorHandler } from '../../../shared/src/errors';
import { createLogger } from '../../../shared/src/logger';
import { MemoryAccountStore } from '../../src/accounts/memory-account-store';
import { PrincipalResolver } from '../../src/accounts/principal-resolver';
import type { KeyAccess, PlanName } from '../../src/accounts/types';
import { generateApiKey, hashApiKey, newAccountId, newKeyId } from '../../src/keys/api-key';
import type { V1Locals } from '../../src/pipeline/locals';
import { inOrder } from '../../../shared/src/in-order';

/**
 * What the unit tests of the `/v1` stages (gateway/src/pipeline/*.test.ts) share: one stage, or a
 * few, mounted at `/v1` in one layer (`inOrder`) as app.ts mounts them, with the app's error handler behind it; and keys in
 * the in-process account store. No process, no server: supertest drives the app in this process.
 */

const logger = createLogger('stage-test', 'silent');

/** What the stages left on `res.locals`, as the final handler answers it (200). */
export interface LocalsSeen {
  principal?: { keyId: string; accountId: string };
  identityRefusal?: { code: string; status: number; message: string; headers: Record<string, string> };
  route?: string;
  body?: string;
}

/** `stages` at `/v1`; a request that passes them all is answered 200 with what they left on `res.locals`. */
export function stageApp(...stages: RequestHandler[]): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('case sensitive routing', true);
  // What the access-log stage gives every request in app.ts.
  const withLog: RequestHandler = (req, _res, next) => {
    req.log = logger;
    next();
  };
  const answer: RequestHandler = (_req, res) => {
    res.json(seen(res.locals as V1Locals));
  };
  app.use('/v1', inOrder([withLog, ...stages, answer]));
  app.use(errorHandler(logger));
  return app;
}

/** A stage that sets what earlier stages would have (a principal, a refusal...). */
export function presetLocals(locals: V1Locals): RequestHandler {
  return (_req, res, next) => {
    Object.assign(res.locals, locals);
    next();
  };
}

/** What identify leaves for a request without a key: authorize answers it with 401. */
export function withoutKey(): RequestHandler {
  return presetLocals({ identityRefusal: new ApiError('unauthorized', 'An API key is required: send Authorization: Bearer <key>.', { 'WWW-Authenticate': 'Bearer realm="animal-store"' }) });
}

function seen({ principal, identityRefusal, route, body }: V1Locals): LocalsSeen {
  return {
    principal: principal && { keyId: principal.keyId, accountId: principal.accountId },
    identityRefusal: identityRefusal && {
      code: identityRefusal.code,
      status: identityRefusal.status,
      message: identityRefusal.message,
      headers: { ...identityRefusal.headers },
    },
    route: route?.kind,
    body: body?.toString('utf8'),
  };
}

export interface KeyOptions {
  plan?: PlanName;
  access?: KeyAccess;
  /** ISO 8601; absent: never. */
  expiresAt?: string;
  replacedBy?: string;
  revoked?: boolean;
}

/** The in-process account store and the resolver over it, as the gateway builds them without Redis. */
export class MemoryKeys {
  readonly resolver: PrincipalResolver;

  /** `store`: the in-process one, or one made to fail like a store that is down. */
  constructor(readonly store: MemoryAccountStore = new MemoryAccountStore()) {
    this.resolver = new PrincipalResolver({ store });
  }

  /** A new account with one key as `options` say; the key as the client sends it, with its ids. */
  async add(options: KeyOptions = {}): Promise<{ key: string; keyId: string; accountId: string }> {
    const now = new Date().toISOString();
    const accountId = newAccountId();
    const keyId = newKeyId();
    const key = generateApiKey('production');
    await this.store.createAccount({ id: accountId, name: 'Test', plan: options.plan ?? 'free', perMinute: null, perDay: null, email: null, createdAt: now });
    await this.store.addKey({
      id: keyId,
      accountId,
      hash: hashApiKey(key),
      createdAt: now,
      revokedAt: options.revoked ? now : null,
      ...(options.access && { access: options.access }),
      ...(options.expiresAt && { expiresAt: options.expiresAt }),
      ...(options.replacedBy && { replacedBy: options.replacedBy }),
    });
    return { key, keyId, accountId };
  }

  close(): void {
    this.resolver.close();
  }
}
