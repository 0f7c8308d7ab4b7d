import type { Gateway } from '../../src/gateway';
import type { PortalTuning } from '../../src/portal';
import { startGateway } from './gateway';
import { PortalVisitor } from './portal-visitor';

/**
 * What the portal's route tests (gateway/test/portal-*.test.ts) share: gateways in process with
 * cheap password hashes, fresh emails, and visitors who have just signed up.
 */

/** Cheaper hashes than production's for the many sign-ups of these tests; the timing test uses the real cost. */
export const CHEAP_HASHES: PortalTuning = { passwordCost: { log2N: 10, r: 8, p: 1 } };

/** A gateway in process whose portal has `tuning` (closing it is the caller's: see `usePortalGateways`). */
export function startPortalGateway(env: Record<string, string> = {}, tuning: PortalTuning = CHEAP_HASHES): Promise<Gateway> {
  return startGateway(env, { portalTuning: tuning });
}

let emails = 0;

/** An email no test of this file has used. */
export function newEmail(): string {
  return `dev${(emails += 1)}@example.com`;
}

/** A visitor with a fresh account on `gateway`, logged in. */
export async function signedUpOn(gateway: Gateway): Promise<{ browser: PortalVisitor; email: string }> {
  const browser = new PortalVisitor(gateway.publicApp);
  const email = newEmail();
  const response = await browser.signUp(email);
  expect(response.status).toBe(303);
  return { browser, email };
}

/** The account id the dashboard shows. */
export function accountIdOn(page: string): string {
  return /<code>(acct_[0-9A-Za-z]{20})<\/code>/.exec(page)![1]!;
}

/**
 * The file's gateways: `gateway`, started before its first test with the defaults, and those a test
 * starts with settings of its own (`gatewayWith`); all closed after the file. `visitor` and `signedUp`
 * use `gateway` unless given another. Call at the top level of a test file.
 */
export function usePortalGateways() {
  const started: Gateway[] = [];
  let gateway: Gateway | undefined;

  const gatewayWith = async (env: Record<string, string> = {}, tuning: PortalTuning = CHEAP_HASHES): Promise<Gateway> => {
    const g = await startPortalGateway(env, tuning);
    started.push(g);
    return g;
  };

  beforeAll(async () => {
    gateway = await gatewayWith();
  });
  afterAll(async () => {
    await Promise.all(started.map((g) => g.close()));
  });

  const current = (): Gateway => {
    if (!gateway) throw new Error('the portal fixture starts its gateway in beforeAll');
    return gateway;
  };

  return {
    get gateway(): Gateway {
      return current();
    },
    gatewayWith,
    /** A new browser (its own address and cookies) on `g`. */
    visitor: (g: Gateway = current(), host?: string) => new PortalVisitor(g.publicApp, host),
    signedUp: (g: Gateway = current()) => signedUpOn(g),
  };
}
