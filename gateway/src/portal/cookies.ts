import type { CookieOptions, Request, Response } from 'express';

/**
 * The portal's two cookies, both HttpOnly (no script reads them):
 * - the session (SameSite=Lax: a link from elsewhere opens the dashboard; nothing that changes
 *   state is a GET, and every POST carries the session's CSRF token besides);
 * - before log-in, the CSRF token of the log-in and sign-up forms (double submit, SameSite=Strict).
 * Over https (PUBLIC_BASE_URL) they are Secure and `__Host-` prefixed, which browsers refuse to let
 * a sibling subdomain or a plain-http page set (no cookie tossing); otherwise they live under /portal.
 */
export interface PortalCookies {
  session: string;
  formToken: string;
  secure: boolean;
  path: string;
}

export function portalCookies(publicBaseUrl: string | undefined): PortalCookies {
  const secure = publicBaseUrl?.startsWith('https:') ?? false;
  return secure
    ? { session: '__Host-portal-session', formToken: '__Host-portal-form', secure, path: '/' }
    : { session: 'portal-session', formToken: 'portal-form', secure, path: '/portal' };
}

export function readCookie(req: Request, name: string): string | undefined {
  for (const pair of (req.headers.cookie ?? '').split(';')) {
    const separator = pair.indexOf('=');
    if (separator > 0 && pair.slice(0, separator).trim() === name) return pair.slice(separator + 1).trim();
  }
  return undefined;
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
