import { parse as parseCookie } from 'cookie';
import type { CookieOptions, Request, Response } from 'express';
import { DEVICE_COOKIE_DAYS } from './device-cookies';

/**
 * The portal's cookies, all HttpOnly (no script reads them):
 * - the session (SameSite=Lax: a link from elsewhere opens the dashboard; nothing that changes
 *   state is a GET, and every POST carries the session's CSRF token besides);
 * - before log-in, the CSRF token of the log-in and sign-up forms (double submit, SameSite=Strict);
 * - the device cookie of a browser that has logged in before (`device-cookies.ts`, SameSite=Strict,
 *   kept for DEVICE_COOKIE_DAYS): only the portal's own log-in form needs it.
 * Over https (PUBLIC_BASE_URL) they are Secure and `__Host-` prefixed, which browsers refuse to let
 * a sibling subdomain or a plain-http page set (no cookie tossing); otherwise they live under /portal.
 */
export interface PortalCookies {
  session: string;
  formToken: string;
  device: string;
  secure: boolean;
  path: string;
}

export function portalCookies(publicBaseUrl: string | undefined): PortalCookies {
  const secure = publicBaseUrl?.startsWith('https:') ?? false;
  return secure
    ? { session: '__Host-portal-session', formToken: '__Host-portal-form', device: '__Host-portal-device', secure, path: '/' }
    : { session: 'portal-session', formToken: 'portal-form', device: 'portal-device', secure, path: '/portal' };
}

/** The cookie's value as the browser sent it (the first, if it sent the name twice), decoded as Express encoded it. */
export function readCookie(req: Request, name: string): string | undefined {
  return parseCookie(req.headers.cookie ?? '')[name];
}

function options(cookies: PortalCookies, sameSite: 'lax' | 'strict'): CookieOptions {
  return { httpOnly: true, secure: cookies.secure, sameSite, path: cookies.path };
}

export function setSessionCookie(res: Response, cookies: PortalCookies, token: string): void {
  res.cookie(cookies.session, token, options(cookies, 'lax'));
}

export function clearSessionCookie(res: Response, cookies: PortalCookies): void {
  res.clearCookie(cookies.session, options(cookies, 'lax'));
}

export function setFormTokenCookie(res: Response, cookies: PortalCookies, token: string): void {
  res.cookie(cookies.formToken, token, options(cookies, 'strict'));
}

export function setDeviceCookie(res: Response, cookies: PortalCookies, value: string): void {
  res.cookie(cookies.device, value, { ...options(cookies, 'strict'), maxAge: DEVICE_COOKIE_DAYS * 86_400_000 });
}
