import type { Request } from 'express';
import { readCookie } from './cookies';

const withCookies = (header: string | undefined) => ({ headers: header === undefined ? {} : { cookie: header } }) as Request;

describe('readCookie', () => {
  it('when the browser sends several cookies, then the one named, decoded as Express encodes it', () => {
    expect(readCookie(withCookies('other=1; portal-session=abc.DEF_-; x=y'), 'portal-session')).toBe('abc.DEF_-');
    expect(readCookie(withCookies('portal-form=a%2Bb%3D'), 'portal-form')).toBe('a+b=');
  });

  it('when a name is sent twice, then the first one counts; an absent one or no header at all is undefined', () => {
    expect(readCookie(withCookies('portal-session=first; portal-session=second'), 'portal-session')).toBe('first');
    expect(readCookie(withCookies('portal-sessionx=1'), 'portal-session')).toBeUndefined();
    expect(readCookie(withCookies(undefined), 'portal-session')).toBeUndefined();
    expect(readCookie(withCookies('__proto__=1'), 'constructor')).toBeUndefined();
  });
});
