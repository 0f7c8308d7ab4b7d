import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Router, type RequestHandler } from 'express';
import { assetsFolder } from '../assets-folder';
import { methodNotAllowed } from '../../../shared/src/errors';
import { nextLinkTarget } from '../../../shared/src/link-header';
import { PLAN_NAMES } from '../accounts/types';

/**
 * The ops console (`GET /console`): a static page, a few vanilla JS modules and one style sheet,
 * served as they are from `gateway/src/admin/assets/` (no build step: ADR 0005, ADR 0011), and the one
 * piece of the gateway's own code the page runs too: `link-header.js`, the Link parsing of
 * `shared/src/link-header.ts` (the CLI's), served as the module its compiled function is. Mounted on the admin app
 * only, so it is never reachable on the public port. The page needs no token to load; it asks for
 * one and sends it as a bearer token to the admin API, which checks every call.
 */

/** Scripts and styles from this origin only, no inline script or style, no framing, no form posts, no other hosts. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The page's plan menus, from the one list of plans. */
const PLAN_OPTIONS_MARKER = '<!-- plan options -->';
const planOptions = PLAN_NAMES.map((plan) => `<option value="${plan}">${plan.charAt(0).toUpperCase()}${plan.slice(1)}</option>`).join('');

const JAVASCRIPT = 'text/javascript; charset=utf-8';

/** Modules of the gateway's code served to the page, each a self-contained function (see `nextLinkTarget`). */
const SHARED_MODULES: Record<string, string> = {
  '/console/link-header.js': `export ${nextLinkTarget.toString()}\n`,
};

/**
 * The page's modules: `console.js`, the one the page loads, imports the others by relative URL
 * (`./admin-api.js` is `/console/admin-api.js`). Listed, not globbed: nothing else in the folder is
 * ever served.
 */
export const CONSOLE_MODULES = [
  'console.js',
  'admin-api.js',
  'dom.js',
  'format.js',
  'sign-in.js',
  'router.js',
  'accounts-view.js',
  'account-view.js',
  'account-keys.js',
  'account-webhooks.js',
  'usage-view.js',
  'audit-view.js',
];

const FILES: Record<string, { file: string; type: string; fill?: (text: string) => string }> = {
  '/console': { file: 'index.html', type: 'text/html; charset=utf-8', fill: (text) => text.replaceAll(PLAN_OPTIONS_MARKER, planOptions) },
  ...Object.fromEntries(CONSOLE_MODULES.map((file) => [`/console/${file}`, { file, type: JAVASCRIPT }])),
  '/console/console.css': { file: 'console.css', type: 'text/css; charset=utf-8' },
  '/console/favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' },
};

export function consoleRoutes(directory = assetsFolder(__dirname, 'gateway/src/admin', 'index.html', "the ops console's files")): Router {
  const router = Router({ caseSensitive: true });
  const served = [
    ...Object.entries(FILES).map(([route, { file, type, fill }]) => {
      // Read once: the files are small, and a missing one stops the gateway at start-up, not a visitor later.
      const raw = readFileSync(path.join(directory, file));
      return { route, type, body: fill ? fill(raw.toString('utf8')) : raw };
    }),
    ...Object.entries(SHARED_MODULES).map(([route, body]) => ({ route, type: JAVASCRIPT, body })),
  ];
  for (const { route, type, body } of served) {
    const serve: RequestHandler = (_req, res) => {
      res.setHeader('Content-Type', type);
      res.setHeader('Content-Security-Policy', CONSOLE_CSP);
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('X-Frame-Options', 'DENY');
      res.setHeader('Referrer-Policy', 'no-referrer');
      res.setHeader('Cache-Control', 'no-cache');
      res.send(body);
    };
    router.get(route, serve);
    router.all(route, methodNotAllowed(['GET', 'HEAD']));
  }
  return router;
}
