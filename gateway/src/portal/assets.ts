import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RequestHandler } from 'express';
import { assetsFolder } from '../assets-folder';

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

export function loadPortalAssets(directory = assetsFolder(__dirname, 'gateway/src/portal', 'portal.js', "the developer portal's assets")): PortalAssets {
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
