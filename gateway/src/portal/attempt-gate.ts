import { clientSubject } from '../limits/client-subject';
import type { AttemptKind, AttemptLimits } from './attempt-limits';
import { tooManyAttempts } from './portal-refusal';

/** An attempt taken from a limit, to give back if it turns out not to count. */
export type TakenAttempt = [AttemptKind, string];

/**
 * The attempt limits as the use cases meet them: a spent limit is a 429 refusal saying when to try
 * again, and a client is counted by its address, IPv6 by network.
 */
export class AttemptGate {
  constructor(
    readonly attempts: AttemptLimits,
    /** `ANON_IPV6_PREFIX_LENGTH`: IPv6 clients share every per-address limit per network of this many bits, as on /v1. */
    private readonly ipv6PrefixLength: number,
  ) {}

  /** Who every per-address limit counts a client as: the same subject as /v1's anonymous limit. */
  addressOf(ip: string): string {
    return clientSubject(ip, this.ipv6PrefixLength);
  }

  async take(kind: AttemptKind, subject: string, what: string): Promise<void> {
    const waitSeconds = await this.attempts.take(kind, subject);
    if (waitSeconds !== null) throw tooManyAttempts(what, waitSeconds);
  }

  async giveBack(taken: ReadonlyArray<TakenAttempt>): Promise<void> {
    await Promise.all(taken.map(([kind, subject]) => this.attempts.giveBack(kind, subject)));
  }
}
