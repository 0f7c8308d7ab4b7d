import { DeviceCookies } from './device-cookies';
import { LOG_IN_SLOWDOWN, slowdownFor } from './sign-in';

describe('DeviceCookies', () => {
  const devices = new DeviceCookies('test-internal-secret-0123456789abcdef');

  it('when a cookie was issued for an email, then it names its device for that email only, and keeps the id when issued again', () => {
    const cookie = devices.issue('ann@example.com');
    const id = devices.verify(cookie, 'ann@example.com');
    expect(id).toMatch(/^[\w-]{22}$/);
    expect(devices.verify(cookie, 'bob@example.com')).toBeUndefined();
    expect(devices.verify(devices.issue('ann@example.com', id), 'ann@example.com')).toBe(id);
    expect(cookie).not.toContain('ann');
  });

  it('when a cookie is forged, altered, or signed with another secret, then it is not recognised', () => {
    const cookie = devices.issue('ann@example.com');
    const [id, signature] = cookie.split('.') as [string, string];
    expect(devices.verify(`${id.slice(0, -1)}${id.endsWith('A') ? 'B' : 'A'}.${signature}`, 'ann@example.com')).toBeUndefined();
    expect(devices.verify(new DeviceCookies('another-secret-0123456789abcdefghij').issue('ann@example.com'), 'ann@example.com')).toBeUndefined();
    for (const value of [undefined, '', 'x.y', `${id}.`, `${cookie}.extra`]) expect(devices.verify(value, 'ann@example.com')).toBeUndefined();
  });
});

describe('slowdownFor', () => {
  it('when an email has failed fewer times than allowed, then no delay; past that, one step more per failure up to the maximum', () => {
    expect([9, 10, 11, 12, 30].map((failures) => slowdownFor(failures, 10, LOG_IN_SLOWDOWN))).toEqual([0, 500, 1_000, 1_500, 5_000]);
  });
});
