import type { IncomingMessage, ServerResponse } from 'node:http';
import proxyAddr from 'proxy-addr';
import type { Logger } from 'pino';
import type { ApiError } from '../../../shared/src/errors';
import type { Principal } from '../accounts/types';
import type { GatewayConfig } from '../config';
import type { LimitDecision } from '../limits/types';
import { ROUTES, type RouteMatch } from '../routes/route-table';

/** Decides, for an address and its hop number, whether that hop is a trusted proxy (proxy-addr's form). */
export type TrustFunction = (address: string, hop: number) => boolean;

/** No peer is a proxy: the client is the socket's peer (the default). */
export const TRUST_NOBODY: TrustFunction = () => false;

/** `TRUST_PROXY` as proxy-addr and Express read it: nobody, the nearest N hops, or these addresses and networks. */
export function compileTrust(trust: GatewayConfig['trustProxy']): TrustFunction {
  if (trust === false) return TRUST_NOBODY;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return proxyAddr.compile(trust);
}

/**
 * One `/v1` request as the pipeline's stages see it: the Node request and response, the path
 * relative to `/v1`, and what the stages tell each other (the key's principal, the refusal to give
 * once limits are applied, the matched route, the body). One object per request, with every field
 * set in the constructor so all requests share one shape.
 */
export class Exchange {
  /** Set by authenticate (from the key caches) or lookUpKey (from the store) when the request carries a valid key. */
  principal: Principal | undefined = undefined;
  /** Set when it does not: answered after the anonymous limit is applied. */
  authError: ApiError | undefined = undefined;
  /**
   * Set by authenticate for a well-formed key of this environment that the caches could not
   * answer; lookUpKey asks the store when the look-up gate lets it. `recentlyValid`: the key was
   * valid until its cache entry aged out or was refreshed, so its lookup skips the gate (nobody
   * can mint such a key).
   */
  pendingKey: { apiKey: string; recentlyValid: boolean } | undefined = undefined;
  /** Set once the request has been charged to its client's anonymous budget (at most once). */
  anonymousDecision: LimitDecision | undefined = undefined;
  /** The request body, read whole by the read-body stage before anything is sent upstream. */
  body: Buffer | undefined = undefined;
  private matched: RouteMatch | undefined = undefined;
  private child: Logger | undefined = undefined;
  private clientAddress: string | undefined = undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    /** The path relative to `/v1` (`/pets/1`; `/` for `/v1` itself), without the query. */
    readonly path: string,
    /** The query with its `?`, or empty. */
    readonly search: string,
    /** The request id (`X-Request-Id`). */
    readonly id: string,
    private readonly trust: TrustFunction,
    private readonly events: Logger,
  ) {}

  /** The request's place in the route table, matched on first use. */
  get route(): RouteMatch {
    return (this.matched ??= ROUTES.match(this.req.method ?? 'GET', this.path));
  }

  /** The client's address: the socket's, or the one a trusted proxy put in X-Forwarded-For. */
  get ip(): string | undefined {
    // Without trusted proxies X-Forwarded-For is never read: no parsing for the common case.
    if (this.trust === TRUST_NOBODY) return this.req.socket.remoteAddress;
    return (this.clientAddress ??= proxyAddr(this.req, this.trust));
  }

  /** `https` or `http`: from X-Forwarded-Proto when the peer is a trusted proxy, else the socket's. */
  get protocol(): string {
    const own = (this.req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
    if (!this.trust(this.req.socket.remoteAddress ?? '', 0)) return own;
    const offered = this.req.headers['x-forwarded-proto'];
    const header = (typeof offered === 'string' && offered) || own;
    const comma = header.indexOf(',');
    return (comma < 0 ? header : header.slice(0, comma)).trim();
  }

  /** A logger whose lines carry this request's id; made on first use, since most requests log nothing else. */
  get log(): Logger {
    return (this.child ??= this.events.child({ reqId: this.id }));
  }
}

/** What a stage calls when it is done: nothing to go on to the next stage, an error to end the pipeline with it. */
export type Next = (error?: unknown) => void;

/** One stage of the `/v1` pipeline (one file each, run in a fixed order by `runStages`). */
export type Stage = (x: Exchange, next: Next) => void | Promise<void>;
