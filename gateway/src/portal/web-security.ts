import type { Request, RequestHandler } from 'express';

/**
 * The portal's browser-side defences, as headers and request checks.
 *
 * The Content-Security-Policy allows scripts, styles and connections from the portal's own origin
 * only (no inline script or style, no `eval`), no plug-ins, no framing, no `<base>` rewriting,
 * and forms that post nowhere else: injected markup could neither run nor send data away.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  // Same-origin requests keep their Referer (a fallback for the origin check); other sites learn nothing.
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  next();
};

/**
 * Whether a state-changing request was sent by a page of the portal itself: the browser's `Origin`
 * (or, lacking it, the origin of `Referer`) must be the portal's origin.
 *
 * With PUBLIC_BASE_URL set, that origin is PUBLIC_BASE_URL's. Without it, it is whatever host the
 * request was sent to (`Host`, compared with the port normalised for the scheme). That is safe
 * because a forged request needs the victim's browser: the browser sets both headers, `Origin` to
 * the attacking page and `Host` to the portal, so they differ. A client that sets both at will is
 * not a browser and holds no victim's cookies; a DNS-rebinding page gets `Host` of its own name,
 * to which the browser sends none of the portal's cookies either. The scheme is not compared
 * without PUBLIC_BASE_URL, since behind a TLS-terminating proxy this process cannot know it.
 */
export function sentFromPortal(req: Request, publicOrigin: string | undefined): boolean {
  const source = req.get('origin') ?? refererOrigin(req.get('referer'));
  if (source === undefined || source === 'null') return false;
  if (publicOrigin !== undefined) return source === publicOrigin;
  const host = req.get('host');
  if (!host) return false;
  try {
    const sourceUrl = new URL(source);
    return sourceUrl.host === new URL(`${sourceUrl.protocol}//${host}`).host;
  } catch {
    return false;
  }
}

function refererOrigin(referer: string | undefined): string | undefined {
  if (!referer) return undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return undefined;
  }
}
