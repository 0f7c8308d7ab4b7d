/**
 * The target of a `Link: <…>; rel="next"` header (RFC 8288), as every reader of the admin API and
 * the public API pages with it: this client, and from `shared/src/link-header.ts` the CLI and the
 * ops console (served this very function: see `gateway/src/admin/console.ts`, so it must stay
 * self-contained plain JavaScript once its types are stripped). It lives in the client because the
 * client is the part built and published on its own, from its own `src/` only. Several links may be
 * given, comma-separated; `rel` may name several relations. Undefined when there is no next page.
 */
export function nextLinkTarget(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (match && /(?:^|;)\s*rel\s*=\s*(?:"[^"]*\bnext\b[^"]*"|next)\s*(?:;|$)/i.test(match[2]!)) return match[1];
  }
  return undefined;
}
