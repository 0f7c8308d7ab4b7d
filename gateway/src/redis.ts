import { EventEmitter } from 'node:events';
import Redis, { Cluster, type ClusterOptions, type RedisOptions } from 'ioredis';
import { maskUrlCredentials } from '../../shared/src/redact';
import { tracing } from '../../shared/src/tracing/runtime';

/**
 * Redis connections that never make a request wait long: no offline queue (a command
 * fails at once while disconnected), a command timeout, one retry, and endless
 * background reconnection so the gateway returns to Redis by itself. The same holds for a
 * Redis Cluster (`REDIS_CLUSTER_NODES`), which the limiter and the account store take as well.
 *
 * The command timeout is only a backstop (e.g. for ops calls): the request path is bounded by its
 * own deadlines (`withDeadline`: `REDIS_TIMEOUT_MS`, 250 ms, for the limiter, twice that for a key
 * lookup; the backstop is raised to twice that when a user raises it), which tell a late
 * reply from a late event loop. ioredis's timer cannot: at 250 ms it failed healthy Redis calls
 * whenever the gateway was busy for a quarter of a second, and every such failure sends the limiter
 * to in-process counting, which lets an account past its quota.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 1_000;

/** The request path's deadline on Redis (`REDIS_TIMEOUT_MS`) when nobody sets one: the limiter's; a key lookup waits twice as long. */
export const DEFAULT_REDIS_TIMEOUT_MS = 250;

/** The backstop for a given request-path deadline: never below ours, and never before a key lookup's own deadline. */
export function commandTimeoutFor(redisTimeoutMs: number): number {
  return Math.max(REDIS_COMMAND_TIMEOUT_MS, 2 * redisTimeoutMs);
}

/** A single Redis or a Redis Cluster: what the limiter and the account store work on. */
export type RedisClient = Redis | Cluster;

/** One seed node of a cluster, as `REDIS_CLUSTER_NODES` lists them. */
export interface ClusterNode {
  host: string;
  port: number;
}

/** Where the gateway's Redis is: one server (`REDIS_URL`) or the seed nodes of a cluster (`REDIS_CLUSTER_NODES`). */
export type RedisTarget = { url: string } | { clusterNodes: readonly ClusterNode[] };

const reconnectDelay = (attempt: number) => Math.min(50 * attempt, 500);

/**
 * What the gateway's connections call themselves (CLIENT SETNAME, sent by ioredis as it connects):
 * an operator's `CLIENT LIST` tells the request path's commands from the change feed's and the job
 * queues' (`jobs/bullmq-queues.ts`), and so do the tests and the bench that count what a request
 * costs Redis.
 */
export const CONNECTION_NAMES = { requests: 'animal-store:requests', changes: 'animal-store:changes' } as const;

/**
 * Commands issued in one event-loop turn (concurrent requests' limiter scripts) go out in one write
 * and their replies come back in one read: the same commands, far fewer system calls under load.
 * Not with tracing on: ioredis sends a batch in the context of its first command, so the ioredis
 * instrumentation would parent a request's limiter call under whatever other request or job queued
 * first in that turn; a trace must show each call where it was made.
 */
const autoPipelining = (): Pick<RedisOptions, 'enableAutoPipelining'> => ({ enableAutoPipelining: tracing === undefined });

/**
 * How long a `disconnect()` waits for the socket to close before destroying it. ioredis arms that
 * timer at every disconnect and clears it only when the socket closes: on a connection that is down
 * already (Redis unreachable, reconnecting) it runs out in full, and its 2 s default kept a closed
 * gateway's process alive that long.
 */
export const DISCONNECT_TIMEOUT_MS = 100;

const requestPathOptions = (commandTimeoutMs: number): RedisOptions => ({
  ...autoPipelining(),
  connectionName: CONNECTION_NAMES.requests,
  disconnectTimeout: DISCONNECT_TIMEOUT_MS,
  enableOfflineQueue: false,
  commandTimeout: commandTimeoutMs,
  maxRetriesPerRequest: 1,
  connectTimeout: 1_000,
  retryStrategy: reconnectDelay,
  lazyConnect: true,
});

/**
 * The cluster equivalent. ioredis gives each node connection an offline queue of its own whatever
 * we say, so the bound on a command sent to a node that just died is our deadline, not ioredis:
 * it retries such a command on a fresh slot map every 100 ms (`retryDelayOnFailover`) for a while,
 * which is what carries a command over a replica's promotion. The cluster-level offline queue is
 * off: while no node at all is reachable, commands fail at once.
 */
const clusterRequestPathOptions = (commandTimeoutMs: number): ClusterOptions => ({
  ...autoPipelining(),
  enableOfflineQueue: false,
  clusterRetryStrategy: reconnectDelay,
  lazyConnect: true,
  slotsRefreshTimeout: 1_000,
  // A slot map that changed without telling us (a failover nobody sent us a MOVED for) is found within this.
  slotsRefreshInterval: 5_000,
  // Node connections open as soon as the slot map names their node. Left lazy (ioredis's default),
  // a burst of first commands finds the node still connecting, and without an offline queue each of
  // them is bounced into ioredis's 100 ms retry loop: requests then miss their deadline on a healthy
  // cluster.
  redisOptions: { connectionName: CONNECTION_NAMES.requests, commandTimeout: commandTimeoutMs, connectTimeout: 1_000, maxRetriesPerRequest: 1, lazyConnect: false, disconnectTimeout: DISCONNECT_TIMEOUT_MS },
});

/**
 * The connection commands go through. Resolves once connected, or after `waitMs` even if not (the
 * gateway then starts degraded). `commandTimeoutMs`: the backstop above.
 */
export async function connectRedis(url: string, waitMs = 2_000, commandTimeoutMs = REDIS_COMMAND_TIMEOUT_MS): Promise<Redis> {
  const client = new Redis(url, requestPathOptions(commandTimeoutMs));
  await connectWithin(client, waitMs);
  return client;
}

/** The same for a cluster: resolves once the slot map is known and a node says the cluster is ok, or after `waitMs`. */
export async function connectCluster(nodes: readonly ClusterNode[], waitMs = 2_000, commandTimeoutMs = REDIS_COMMAND_TIMEOUT_MS): Promise<Cluster> {
  const client = new Cluster(nodes.map((node) => ({ ...node })), clusterRequestPathOptions(commandTimeoutMs));
  await connectWithin(client, waitMs);
  return client;
}

/**
 * Ends a connection: QUIT (replies still due arrive first) or, when that fails or `graceful` is
 * false, at once. A Cluster also needs its slots refresh stopped: ioredis (5.11,
 * `resetNodesRefreshInterval`) arms the next periodic refresh when one ends, and one still in
 * flight when the connection ends arms it on the closed client, every `slotsRefreshInterval`,
 * forever (a test file's timer, seen with two suites side by side). So wait for that refresh to
 * end, then clear what it armed.
 */
export async function endConnection(client: RedisClient, { graceful = true }: { graceful?: boolean } = {}): Promise<void> {
  if (graceful) await client.quit().catch(() => client.disconnect());
  else client.disconnect();
  if (client instanceof Cluster) await stopSlotsRefresh(client);
}

/** ioredis's own: whether a slots refresh is in flight, and what clears the periodic one's timer. */
interface SlotsRefresh {
  isRefreshing?: boolean;
  clearNodesRefreshInterval?: () => void;
}

/** A refresh asks the nodes one after the other, each within `slotsRefreshTimeout`. */
const SLOTS_REFRESH_END_WAIT_MS = 5_000;

async function stopSlotsRefresh(cluster: Cluster): Promise<void> {
  const refresh = cluster as unknown as SlotsRefresh;
  const deadline = Date.now() + SLOTS_REFRESH_END_WAIT_MS;
  while (refresh.isRefreshing === true && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  refresh.clearNodesRefreshInterval?.();
}

export function connectTarget(target: RedisTarget, waitMs?: number, commandTimeoutMs?: number): Promise<RedisClient> {
  return 'url' in target ? connectRedis(target.url, waitMs, commandTimeoutMs) : connectCluster(target.clusterNodes, waitMs, commandTimeoutMs);
}

/**
 * Waits for the client's 'ready', `waitMs` at most, or until its first connection fails. Not for
 * `connect()`'s promise: ioredis's Cluster (5.11) leaves it pending for good when its first ready
 * check fails (a node still says `cluster_state:fail`, as one may for a moment on a loaded machine):
 * it reconnects and says 'ready' later, but only as an event.
 */
async function connectWithin(client: RedisClient, waitMs: number): Promise<void> {
  client.on('error', () => {
    // Reported through the limiter's and store's own state; ioredis would otherwise print every retry.
  });
  await new Promise<void>((resolve) => {
    const settle = () => {
      clearTimeout(timer);
      client.off('ready', settle);
      resolve();
    };
    const timer = setTimeout(settle, waitMs);
    client.once('ready', settle);
    client.connect().then(settle, settle);
  });
}

/** What the account store's change feed needs of a connection: SUBSCRIBE, 'message', and 'ready' after every (re)connection. */
export interface FeedSubscriber {
  readonly status: string;
  subscribe(...channels: string[]): Promise<unknown>;
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
  disconnect(): void;
}

/**
 * A connection for SUBSCRIBE: it may queue (nothing waits on it) and reconnects by itself; its user
 * subscribes again on every 'ready' (`RedisChangeFeed`). ioredis's own resubscription is off: its
 * promise is held by nobody, so a connection closed before Redis answered it (a feed closed just
 * after Redis came back) rejected it unhandled ('Connection is closed.').
 */
export function createSubscriber(url: string): Redis {
  const client = new Redis(url, {
    ...requestPathOptions(REDIS_COMMAND_TIMEOUT_MS),
    connectionName: CONNECTION_NAMES.changes,
    enableAutoPipelining: false,
    enableOfflineQueue: true,
    commandTimeout: undefined,
    lazyConnect: false,
    maxRetriesPerRequest: null,
    autoResubscribe: false,
  });
  client.on('error', () => undefined);
  return client;
}

export function createTargetSubscriber(target: RedisTarget, client: RedisClient): FeedSubscriber {
  if ('url' in target) return createSubscriber(target.url);
  return new ClusterFeedSubscriber(() => knownMasters(client, target.clusterNodes));
}

/** The cluster's masters as ioredis last saw them, or the seed nodes before it saw any. */
function knownMasters(client: RedisClient, seeds: readonly ClusterNode[]): ClusterNode[] {
  const masters = client instanceof Cluster ? client.nodes('master').map((node) => ({ host: node.options.host ?? '127.0.0.1', port: node.options.port ?? 6379 })) : [];
  return masters.length > 0 ? masters : [...seeds];
}

/**
 * SUBSCRIBE on a Redis Cluster. A classic PUBLISH reaches every node of a cluster, so one
 * connection to any node hears every change. ioredis's `Cluster` does move its subscriber to
 * another node when that node fails and resubscribes there, but it tells nobody, and what was
 * published in between is lost; the account store must know, to emit its `reset`. So this keeps one
 * plain connection to one node at a time, moves to the next node as soon as that connection ends,
 * and emits 'ready' for every new connection, exactly as a single Redis subscriber does after a
 * reconnection.
 */
export class ClusterFeedSubscriber extends EventEmitter implements FeedSubscriber {
  private connection: Redis | undefined;
  /** The connection this subscriber has said 'ready' for: its channels are subscribed there. */
  private announced: Redis | undefined;
  private readonly channels = new Set<string>();
  private nextNode = 0;
  private failuresInARow = 0;
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(private readonly nodes: () => ClusterNode[]) {
    super();
    this.open();
  }

  /** 'ready' once the channels are subscribed on the connection (as 'ready' is emitted), not when ioredis's connection is. */
  get status(): string {
    const status = this.connection?.status ?? 'end';
    return status === 'ready' && this.announced !== this.connection ? 'subscribing' : status;
  }

  /** The node listened to now (for tests and logs). */
  get node(): ClusterNode | undefined {
    return this.connection ? { host: this.connection.options.host ?? '', port: this.connection.options.port ?? 0 } : undefined;
  }

  subscribe(...channels: string[]): Promise<unknown> {
    for (const channel of channels) this.channels.add(channel);
    if (!this.connection) return Promise.reject(new Error('the change feed subscriber is not connected'));
    return this.connection.subscribe(...channels);
  }

  disconnect(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.connection?.disconnect();
    this.connection = undefined;
  }

  private open(): void {
    if (this.closed) return;
    const nodes = this.nodes();
    const node = nodes[this.nextNode++ % nodes.length];
    if (!node) return;
    // No reconnection of its own: when this node goes, the next one is tried at once.
    const connection = new Redis({ host: node.host, port: node.port, connectionName: CONNECTION_NAMES.changes, connectTimeout: 1_000, retryStrategy: () => null, enableOfflineQueue: true, maxRetriesPerRequest: null, disconnectTimeout: DISCONNECT_TIMEOUT_MS });
    this.connection = connection;
    connection.on('error', () => undefined);
    connection.on('message', (channel: string, message: string) => this.emit('message', channel, message));
    connection.once('ready', () => {
      this.failuresInARow = 0;
      // 'ready' only once the channels are subscribed on this node: the store's reset that follows
      // must cover every write it could miss, those published before the subscription took included.
      const subscribed = this.channels.size > 0 ? connection.subscribe(...this.channels) : Promise.resolve();
      subscribed.then(
        () => {
          if (this.connection !== connection) return;
          this.announced = connection;
          this.emit('ready');
        },
        () => undefined, // the connection ended meanwhile: 'end' moves on to the next node
      );
    });
    connection.once('end', () => {
      if (this.closed || this.connection !== connection) return;
      this.connection = undefined;
      // Straight to the next node; once every node has failed in a row, wait a little between rounds.
      this.failuresInARow += 1;
      const delay = this.failuresInARow >= nodes.length ? reconnectDelay(this.failuresInARow) : 0;
      this.retryTimer = setTimeout(() => this.open(), delay);
      this.retryTimer.unref();
    });
  }
}

/** For logs: the URL without its password, or the cluster's seed nodes. */
export function describeTarget(target: RedisTarget): string {
  if ('url' in target) return maskUrlCredentials(target.url);
  return `cluster ${target.clusterNodes.map((node) => `${node.host}:${node.port}`).join(',')}`;
}

export type { Redis, Cluster };
