import type { RequestHandler } from 'express';
import swaggerUi from 'swagger-ui-express';

/**
 * `/docs`: Swagger UI over the interface description, under a Content-Security-Policy. It shares
 * the portal's origin, so script injected here could read portal pages with the visitor's cookie;
 * the policy allows scripts, styles and connections from this origin only, images from it and
 * `data:` (Swagger UI's stylesheet draws its icons so), no framing and no `<base>`.
 *
 * swagger-ui-express loads its scripts from files (its start-up script is `swagger-ui-init.js`),
 * but its page carries two inline `<style>` blocks and a `style` attribute. Rather than loosen
 * the policy (`'unsafe-inline'`, or hashes that change with every release of the package), they
 * are moved into a stylesheet of this module's own, `/docs/docs-page.css`, when the page is made.
 * Swagger UI sets styles from script through the CSSOM, which the policy does not restrict.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const STYLESHEET = 'docs-page.css';

export interface DocsOptions {
  /** The page's title. */
  title: string;
}

/** The handlers to mount at `/docs` (after any guard on methods and paths). */
export function interactiveDocs(document: object, { title }: DocsOptions): RequestHandler[] {
  // - no validator badge: it would load an image from the validator's site, which the policy forbids;
  // - the base layout, without the standalone preset's top bar: its Swagger logo is an SVG that
  //   carries an inline <style> element, which the policy refuses (and the bar only held the logo);
  // - customCss '', since without it swagger-ui-express writes "undefined" into its style block.
  const generated = swaggerUi.generateHTML(document, { customSiteTitle: title, customCss: '', swaggerOptions: { validatorUrl: null, layout: 'BaseLayout' } });
  const { html, css } = withoutInlineStyles(generated);
  const securityHeaders: RequestHandler = (_req, res, next) => {
    res.setHeader('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'same-origin');
    next();
  };
  const stylesheet: RequestHandler = (req, res, next) => {
    if (req.path !== `/${STYLESHEET}`) return next();
    res.type('text/css').send(css);
  };
  // Like swagger-ui-express's own page handler: every other name under /docs is the page.
  const page: RequestHandler = (_req, res) => {
    res.type('html').send(html);
  };
  // swaggerUi.serve answers swagger-ui-init.js and the package's files, and redirects /docs to /docs/.
  return [securityHeaders, stylesheet, ...swaggerUi.serve, page];
}

/** The page with its `<style>` blocks and `style` attributes moved into one stylesheet it links to. */
export function withoutInlineStyles(page: string): { html: string; css: string } {
  const blocks: string[] = [];
  let html = page.replace(/<style[^>]*>([\s\S]*?)<\/style>/gi, (_block, css: string) => {
    blocks.push(css.trim());
    return '';
  });
  // The attributes' rules first: a stray token at the end of a block cannot swallow them.
  const rules: string[] = [];
  html = html.replace(/\sstyle="([^"]*)"/gi, (_attribute, declarations: string) => {
    const name = `docs-inline-${rules.length + 1}`;
    rules.push(`.${name} { ${declarations} }`);
    return ` class="${name}"`;
  });
  rules.push(...blocks);
  html = html.replace(/<\/head>/i, `  <link rel="stylesheet" type="text/css" href="./${STYLESHEET}">\n</head>`);
  return { html, css: `${rules.join('\n\n')}\n` };
}
