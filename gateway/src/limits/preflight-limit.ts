import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError } from '../../../shared/src/errors';
import { clientSubject } from './client-subject';

export interface PreflightPolicy {
  /** `PREFLIGHT_PER_MINUTE`: CORS preflights one client (an IPv4 address, an IPv6 network) may send per minute. */
  perMinute: number;
  /** `ANON_IPV6_PREFIX_LENGTH`: IPv6 clients are counted per network of this many bits, as by every per-address limit. */
  ipv6PrefixLength: number;
}

/**
 * A preflight needs no key and costs no API quota (a browser sends one before its real request), so
 * without a limit of its own any address could have the gateway answer them without end (issue 24:
 * 600 in 0.4 s, all served). Counted per client address in a window of a minute, in process: each
 * replica counts its own, and no store round trip is spent on them.
 */
export class PreflightLimit {
  private readonly limiter: RateLimiterMemory;

  constructor(private readonly policy: PreflightPolicy) {
    this.limiter = new RateLimiterMemory({ points: policy.perMinute, duration: 60 });
  }

  /** Counts one preflight of `ip`'s client: undefined when allowed, else the 429 to answer (with Retry-After). */
  async take(ip: string | undefined): Promise<ApiError | undefined> {
    try {
      await this.limiter.consume(clientSubject(ip, this.policy.ipv6PrefixLength));
      return undefined;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const seconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      return new ApiError('rate_limited', `Too many CORS preflight requests from this address (at most ${this.policy.perMinute} a minute); retry after ${seconds} seconds.`, {
        'Retry-After': String(seconds),
      });
    }
  }
}
