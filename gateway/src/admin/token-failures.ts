import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { clientSubject } from '../limits/client-subject';

/**
 * Back-off after wrong admin tokens, per client address (IPv6 per network, as the public limits
 * count it): a token could otherwise be guessed at the ~800 tries a second the admin API answers.
 * Each request that presents a token reserves one try before the comparison and gets it back when
 * the token is right, so only wrong tokens count and a burst of concurrent guesses cannot overrun
 * the limit; past it every request from that address, the right token's included, is answered 429
 * until the window ends, so a blocked guesser learns nothing. Requests without a token cost nothing
 * (a browser page cannot send one cross-site, so no web page can lock the operator out).
 * In process: the admin port of each replica counts its own.
 */
export interface TokenFailurePolicy {
  /** Wrong tokens allowed per address within the window. */
  failures: number;
  windowSeconds: number;
}

export const TOKEN_FAILURE_POLICY: TokenFailurePolicy = Object.freeze({ failures: 10, windowSeconds: 300 });

export class TokenFailures {
  private readonly limiter: RateLimiterMemory;

  constructor(
    policy: TokenFailurePolicy = TOKEN_FAILURE_POLICY,
    private readonly ipv6PrefixLength = 64,
  ) {
    this.limiter = new RateLimiterMemory({ points: policy.failures, duration: policy.windowSeconds });
  }

  /** Reserves one try for the address: null when granted, else the whole seconds (at least 1) to wait. */
  async reserve(address: string | undefined): Promise<number | null> {
    try {
      await this.limiter.consume(this.subject(address));
      return null;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw rejection;
    }
  }

  /** The token was right: the reserved try is given back. */
  async release(address: string | undefined): Promise<void> {
    await this.limiter.reward(this.subject(address));
  }

  private subject(address: string | undefined): string {
    return clientSubject(address, this.ipv6PrefixLength);
  }
}
