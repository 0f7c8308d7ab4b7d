import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Password hashes: scrypt from node:crypto, a random 16-byte salt per password, a 32-byte hash.
 *
 * Cost: N = 2^15 (CPU/memory cost), r = 8 (block size), p = 1 (parallelism), so 128·N·r = 32 MiB of
 * memory and about 0.1 s of one core per hash on the project's machines. OWASP's current minimum is
 * the equivalent of N = 2^17; we trade that for a gateway whose two cores also serve the API, and
 * bound how many hashes run at once (below). The cost is written into every hash
 * (`$scrypt$ln=15,r=8,p=1$<salt>$<hash>`, base64url), so it can be raised later and old hashes still verify.
 *
 * Passwords are NFKC-normalised first (NIST SP 800-63B), so the same password typed on two
 * keyboards that compose characters differently is the same password.
 */
export interface ScryptCost {
  /** log2 of N, the CPU/memory cost. */
  log2N: number;
  r: number;
  p: number;
}

export const SCRYPT_COST: Readonly<ScryptCost> = Object.freeze({ log2N: 15, r: 8, p: 1 });
const SALT_BYTES = 16;
const HASH_BYTES = 32;
const FORMAT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

/** Too many hashes are waiting: the caller answers 503 rather than let log-ins starve the API of CPU. */
export class HasherBusyError extends Error {
  constructor() {
    super('too many password hashes are waiting');
    this.name = 'HasherBusyError';
  }
}

export interface PasswordHasherOptions {
  cost?: ScryptCost;
  /** Hashes computed at once (each takes a libuv thread and a core). */
  maxConcurrent?: number;
  /** Hashes allowed to wait for a turn; more are refused with HasherBusyError. */
  maxWaiting?: number;
}

export class PasswordHasher {
  private readonly cost: ScryptCost;
  private readonly gate: Gate;
  private dummy: Promise<string> | undefined;

  constructor({ cost = SCRYPT_COST, maxConcurrent = 2, maxWaiting = 32 }: PasswordHasherOptions = {}) {
    this.cost = { ...cost };
    this.gate = new Gate(maxConcurrent, maxWaiting);
  }

  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_BYTES);
    const derived = await this.gate.run(() => derive(password, salt, this.cost));
    const { log2N, r, p } = this.cost;
    return `$scrypt$ln=${log2N},r=${r},p=${p}$${salt.toString('base64url')}$${derived.toString('base64url')}`;
  }

  /** True when `password` is the one `stored` was made from; the comparison takes the same time whatever matches. */
  async verify(password: string, stored: string): Promise<boolean> {
    const parsed = parse(stored);
    if (!parsed) {
      await this.verifyAgainstNothing(password);
      return false;
    }
    const derived = await this.gate.run(() => derive(password, parsed.salt, parsed.cost));
    return derived.length === parsed.hash.length && timingSafeEqual(derived, parsed.hash);
  }

  /** Spends the work of a verification on a hash nothing matches: an unknown email costs what a known one does. */
  async verifyAgainstNothing(password: string): Promise<false> {
    this.dummy ??= this.hash(randomBytes(32).toString('base64url'));
    const parsed = parse(await this.dummy)!;
    await this.gate.run(() => derive(password, parsed.salt, parsed.cost));
    return false;
  }
}

function derive(password: string, salt: Buffer, { log2N, r, p }: ScryptCost): Promise<Buffer> {
  const N = 2 ** log2N;
  return new Promise((resolve, reject) => {
    // maxmem: scrypt needs 128·N·r·p bytes; Node's default ceiling (32 MiB) is exactly ours, so leave room.
    scrypt(password.normalize('NFKC'), salt, HASH_BYTES, { N, r, p, maxmem: 256 * N * r * p }, (error, derived) => (error ? reject(error) : resolve(derived)));
  });
}

function parse(stored: string): { cost: ScryptCost; salt: Buffer; hash: Buffer } | null {
  const match = FORMAT.exec(stored);
  if (!match) return null;
  const [, log2N, r, p, salt, hash] = match;
  const cost = { log2N: Number(log2N), r: Number(r), p: Number(p) };
  // A stored hash is data: bound the work it can ask for.
  if (cost.log2N < 1 || cost.log2N > 20 || cost.r < 1 || cost.p < 1) return null;
  return { cost, salt: Buffer.from(salt!, 'base64url'), hash: Buffer.from(hash!, 'base64url') };
}

/** At most `maxConcurrent` tasks at once, at most `maxWaiting` in line; a finishing task hands its turn to the next. */
class Gate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly maxConcurrent: number,
    private readonly maxWaiting: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running < this.maxConcurrent) this.running += 1;
    else if (this.waiting.length >= this.maxWaiting) throw new HasherBusyError();
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
