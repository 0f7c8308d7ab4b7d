import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { RequestHandler } from 'express';

/**
 * The portal's script and stylesheet: plain files in `assets/`, read once at start-up and served
 * from memory. No build step: the compiled gateway (dist/) reads them from the source tree, so
 * the Docker image copies that folder too.
 */
const TYPES: Record<string, string> = {
  'portal.js': 'text/javascript; charset=utf-8',
  'portal.css': 'text/css; charset=utf-8',
};

export interface PortalAssets {
  /** A digest of every asset, for the URLs' `?v=` (a changed file gets a new URL). */
  version: string;
  serve: RequestHandler;
}

/** `assets/` beside this file when run from source; in the source tree when run from dist/. */
function assetsDirectory(): string {
  const candidates = [path.join(__dirname, 'assets'), path.resolve(__dirname, '..', '..', '..', '..', 'gateway', 'src', 'portal', 'assets')];
  const found = candidates.find((candidate) => existsSync(path.join(candidate, 'portal.js')));
  if (!found) throw new Error(`the developer portal's assets are missing: looked in ${candidates.join(' and ')}`);
  return found;
}

export function loadPortalAssets(directory = assetsDirectory()): PortalAssets {
  const files = new Map(Object.keys(TYPES).map((name) => [name, readFileSync(path.join(directory, name))]));
  const digest = createHash('sha256');
  for (const [name, body] of files) digest.update(name).update(body);
  const version = digest.digest('hex').slice(0, 12);

  const serve: RequestHandler = (req, res, next) => {
    const name = String(req.params.name);
    const body = files.get(name);
    if (!body) return next();
    res.setHeader('Content-Type', TYPES[name]!);
    res.setHeader('Cache-Control', req.query.v === version ? 'public, max-age=31536000, immutable' : 'no-cache');
    res.send(body);
  };
  return { version, serve };
}
