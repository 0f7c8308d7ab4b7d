/**
 * The gateway's app-level per-request work (request id, access log with its `req.log`, the metrics
 * of a response), old code against new: `node dist/bench/micro/app-middleware.js OLD_DIST` with
 * OLD_DIST the `dist/` of a build of the code before the cut (e.g. a `git worktree` of main). Each
 * call is one request through the stack, its response finished and closed, the access line written
 * to a logger that discards it. Both trees are loaded in this one process and alternate.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import express from 'express';
import pino from 'pino';
import { alternate, timingText } from './alternate';

type Handler = (req: unknown, res: unknown, next: () => void) => void;

/** One request through `dist`'s stack, adapting to the API of that version. */
function requestThrough(dist: string): () => void {
  /* eslint-disable @typescript-eslint/no-require-imports -- two builds of the same modules, chosen at run time */
  const { accessLog } = require(path.join(dist, 'shared/src/access-log.js')) as { accessLog: (...args: unknown[]) => Handler };
  const { requestId } = require(path.join(dist, 'shared/src/request-id.js')) as { requestId: Handler };
  const { createMetrics } = require(path.join(dist, 'gateway/src/metrics.js')) as { createMetrics: (o: object) => { observeRequests?: Handler; observeResponse?: unknown } };
  /* eslint-enable @typescript-eslint/no-require-imports */
  const app = express();
  const discard = pino({ level: 'info' }, { write: () => undefined });
  const metrics = createMetrics({ isDegraded: () => false, defaultMetrics: false });
  // Before issue 29 accessLog(logger, events), metrics its own middleware; after, the app first and the metrics in the access log's listener.
  const takesApp = accessLog.length >= 2;
  const stack: Handler[] = [
    requestId,
    takesApp ? accessLog(app, discard, discard, ...(metrics.observeRequests ? [] : [{ onResponse: metrics.observeResponse }])) : accessLog(discard, discard),
    ...(metrics.observeRequests ? [metrics.observeRequests] : []),
  ];
  const socket = { remoteAddress: '127.0.0.1' };
  return () => {
    const req = new IncomingMessage(socket as never);
    Object.setPrototypeOf(req, app.request);
    req.method = 'GET';
    req.url = '/v1/pets?limit=20';
    (req as unknown as { originalUrl: string }).originalUrl = req.url;
    req.headers = { host: 'localhost', authorization: 'Bearer x' };
    const res = new ServerResponse(req);
    Object.setPrototypeOf(res, app.response);
    (res as unknown as { locals: object }).locals = {};
    let at = 0;
    const next = () => {
      const stage = stack[at++];
      if (stage) stage(req, res, next);
    };
    next();
    res.statusCode = 200;
    (res as unknown as { finished: boolean }).finished = true;
    res.emit('finish');
    res.emit('close');
  };
}

const old = process.argv[2];
if (!old) {
  process.stderr.write('usage: node dist/bench/micro/app-middleware.js OLD_DIST\n');
  process.exit(2);
}
process.stdout.write(`${timingText(alternate({ old: requestThrough(path.resolve(old)), new: requestThrough(path.resolve(__dirname, '../..')) }))}\n`);
