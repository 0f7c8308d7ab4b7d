import http from 'node:http';
import https from 'node:https';

/** Why a replica failed a request: it refused or dropped the connection, or it did not answer in time. */
export type FailureKind = 'connect' | 'reset' | 'timeout';

export interface Replica {
  /** The base URL as configured (`PETS_URL` entry), also its metrics label. */
  readonly url: string;
  /** This replica's own keep-alive pool. */
  readonly agent: http.Agent;
  /**
   * The replica as http-proxy's `target`, parsed once: `host` is the Host header to send (with
   * the port unless it is the scheme's default, an IPv6 address in brackets), `path` the prefix
   * joined before every forwarded path (a base URL may carry one).
   */
  readonly target: { readonly protocol: string; readonly hostname: string; readonly host: string; readonly port: number; readonly path: string };
  /** 0 while healthy; otherwise when it may be tried again. */
  unavailableUntil: number;
  /** Consecutive failures, for the back-off. */
  failures: number;
  /** While a request probes it after a back-off: when that probe's window ends (else 0). */
  probeUntil: number;
}

export interface ReplicaSetOptions {
  /** First back-off after a failure; doubles with each further failure, up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /**
   * How long a replica coming back from a back-off is given only the one request that probes it
   * (until that request's outcome is known, at most this long): a frozen replica that still accepts
   * connections then holds one request per back-off, not every request sent its way meanwhile.
   */
  probeMs?: number;
  now?: () => number;
}

/**
 * The pets-service replicas behind `PETS_URL`: requests go round robin over the healthy ones, each
 * over its own keep-alive pool. A replica that fails (connection refused or reset, or too slow) is
 * left out for a back-off (passive health checking: no probe traffic of its own), then gets one
 * request, the probe, and no other until that one's outcome is known (or `probeMs` passed); one
 * success makes it healthy. When every replica is backing off, the one free soonest is still tried:
 * a request is never refused without an attempt.
 */
export class ReplicaSet {
  readonly replicas: readonly Replica[];
  private next = 0;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly probeMs: number;
  private readonly now: () => number;

  constructor(urls: readonly string[], { backoffMs = 500, maxBackoffMs = 15_000, probeMs = 10_000, now = Date.now }: ReplicaSetOptions = {}) {
    if (urls.length === 0) throw new Error('at least one pets-service URL is needed');
    this.replicas = urls.map(replicaOf);
    this.backoffMs = backoffMs;
    this.maxBackoffMs = maxBackoffMs;
    this.probeMs = probeMs;
    this.now = now;
  }

  /**
   * The next replica to try, never one of `tried`; undefined when every replica has been tried.
   * `mayProbe` false (a request not safe to repeat): a replica back from a back-off is given it only
   * when no healthy one is left. With it, when this request is the one probing the replica, the end
   * of its probe window (else 0).
   */
  take(tried?: ReadonlySet<Replica>, mayProbe = true): { replica: Replica; probeUntil: number } | undefined {
    const count = this.replicas.length;
    const now = this.now();
    let soonest: Replica | undefined;
    let recovering: Replica | undefined;
    for (let i = 0; i < count; i++) {
      const replica = this.replicas[(this.next + i) % count]!;
      if (tried?.has(replica)) continue;
      if (replica.unavailableUntil <= now) {
        if (replica.failures > 0 && !mayProbe) {
          recovering ??= replica;
          continue;
        }
        this.next = (this.next + i + 1) % count;
        return this.probed(replica, now);
      }
      if (!soonest || replica.unavailableUntil < soonest.unavailableUntil) soonest = replica;
    }
    if (recovering) return this.probed(recovering, now);
    // Every replica is backing off or being probed: the one free soonest is still tried (no probe of its own).
    return soonest && { replica: soonest, probeUntil: 0 };
  }

  /** Back from a back-off: this request probes it; the others pass it by until its outcome is known. */
  private probed(replica: Replica, now: number): { replica: Replica; probeUntil: number } {
    if (replica.failures === 0) return { replica, probeUntil: 0 };
    replica.unavailableUntil = replica.probeUntil = now + this.probeMs;
    return { replica, probeUntil: replica.probeUntil };
  }

  /** Whether a replica other than `tried` may take a request now (not backing off, not being probed). */
  anotherAvailable(tried: ReadonlySet<Replica>): boolean {
    const now = this.now();
    return this.replicas.some((replica) => !tried.has(replica) && replica.unavailableUntil <= now);
  }

  /**
   * The probe of `replica` (made when its window ended at `probeUntil`) was given up by its client
   * before any answer: the next request may probe, unless something else was learnt meanwhile.
   */
  abandoned(replica: Replica, probeUntil: number): void {
    if (probeUntil > 0 && replica.probeUntil === probeUntil && replica.unavailableUntil === probeUntil) replica.unavailableUntil = this.now();
  }

  succeeded(replica: Replica): void {
    replica.failures = 0;
    replica.unavailableUntil = 0;
    replica.probeUntil = 0;
  }

  failed(replica: Replica): void {
    replica.failures += 1;
    const backoff = Math.min(this.backoffMs * 2 ** (replica.failures - 1), this.maxBackoffMs);
    replica.unavailableUntil = this.now() + backoff;
    replica.probeUntil = 0;
  }

  isAvailable(replica: Replica): boolean {
    return replica.unavailableUntil <= this.now();
  }

  close(): void {
    for (const replica of this.replicas) replica.agent.destroy();
  }
}

/**
 * Idle upstream connections close after 30 s, well before the pets-service's 65 s keep-alive
 * timeout, so the gateway never reuses a connection the pets-service is closing.
 */
const AGENT_OPTIONS: http.AgentOptions = { keepAlive: true, maxSockets: 256, maxFreeSockets: 64, keepAliveMsecs: 1_000, timeout: 30_000 };

function replicaOf(base: string): Replica {
  const url = new URL(base);
  const protocol = url.protocol === 'https:' ? 'https:' : 'http:';
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port) || (protocol === 'https:' ? 443 : 80);
  const basePath = url.pathname.replace(/\/+$/, '');
  return {
    url: base,
    agent: protocol === 'https:' ? new https.Agent(AGENT_OPTIONS) : new http.Agent(AGENT_OPTIONS),
    // URL.host is the Host header's form: brackets around IPv6, no default port.
    target: { protocol, hostname, host: url.host, port, path: basePath },
    unavailableUntil: 0,
    failures: 0,
    probeUntil: 0,
  };
}
