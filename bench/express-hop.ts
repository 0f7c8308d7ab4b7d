/**
 * The bench's second yardstick (issue 15): the owner's stack with no feature of ours. `express()`
 * with its default settings and `createProxyMiddleware` (http-proxy-middleware 3) mounted on `/v1`
 * (Express strips the mount path, and HPM 3 forwards `req.url`), through the same keep-alive pool
 * as the bare hop, with the same internal token in place of the client's Authorization. What the
 * gateway costs above this is what its own features cost on top of Express and HPM.
 */
import http from 'node:http';
import express from 'express';
import { hopProxy } from './express-hop-proxy';
import { PREFIX, serve } from './hop-settings';

const app = express();
app.use(PREFIX, hopProxy());
serve(http.createServer(app));
