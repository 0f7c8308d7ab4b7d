import { MemoryPortalStore } from './memory-store';
import { Sessions } from './sessions';

describe('Sessions', () => {
  let clock: number;
  let store: MemoryPortalStore;
  let sessions: Sessions;

  beforeEach(() => {
    clock = 1_000_000;
    store = new MemoryPortalStore(() => clock);
    sessions = new Sessions(store, { idleMs: 30 * 60_000, absoluteMs: 12 * 3_600_000 }, () => clock);
  });

  afterEach(() => store.close());

  it('when a session starts, then its token resumes it and is not what the store keeps', async () => {
    const { token, session } = await sessions.start('acct_1');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await sessions.resume(token)).toEqual(session);
    expect(await store.findSession(token)).toBeNull();
  });

  it('when two sessions start for one account, then tokens and CSRF tokens differ', async () => {
    const first = await sessions.start('acct_1');
    const second = await sessions.start('acct_1');
    expect(second.token).not.toBe(first.token);
    expect(second.session.csrfToken).not.toBe(first.session.csrfToken);
  });

  it('when no request comes for the idle time, then the session is over', async () => {
    const { token } = await sessions.start('acct_1');
    clock += 30 * 60_000;
    expect(await sessions.resume(token)).toBeNull();
  });

  it('when requests keep coming, then the idle time restarts with each, until the absolute expiry', async () => {
    const { token } = await sessions.start('acct_1');
    for (let hour = 0; hour < 11; hour += 1) {
      for (let step = 0; step < 3; step += 1) {
        clock += 20 * 60_000;
        expect(await sessions.resume(token)).not.toBeNull();
      }
    }
    for (const step of [20, 20]) {
      clock += step * 60_000; // 11 h 20 min, then 11 h 40 min after the start
      expect(await sessions.resume(token)).not.toBeNull();
    }
    clock += 19 * 60_000; // 11 h 59 min
    expect(await sessions.resume(token)).not.toBeNull();
    clock += 60_000; // 12 h after the start, the last request a minute ago
    expect(await sessions.resume(token)).toBeNull();
  });

  it('when a session ends, then its token no longer resumes it', async () => {
    const { token } = await sessions.start('acct_1');
    await sessions.end(token);
    expect(await sessions.resume(token)).toBeNull();
  });

  it('when the token is missing or malformed, then there is no session', async () => {
    for (const token of [undefined, '', 'short', 'x'.repeat(43) + '!', 'a'.repeat(44)]) expect(await sessions.resume(token)).toBeNull();
  });
});
