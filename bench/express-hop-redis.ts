/**
 * The bench's third yardstick (issue 29): the Express + HPM hop (`express-hop.ts`) plus the one
 * piece of work the contract does not let a gateway skip, the limiter's Redis round trip. Each
 * request runs the gateway's own consume script (EVALSHA, `gateway/src/limits/script.ts`) once, on
 * a connection opened as the gateway opens it (`connectRedis`: auto-pipelining, no offline queue),
 * with the key names built once, then is proxied; nothing else of the gateway runs (no API key, no
 * access log, no headers, no reply parsed). What this costs above the Express hop is what the
 * round trip alone costs; what the gateway costs above this is what all its other features cost.
 */
import http from 'node:http';
import express from 'express';
import { connectRedis } from '../gateway/src/redis';
import { defineScripts } from '../gateway/src/limits/script';
import { consumeArguments } from './round-trip-arguments';
import { hopProxy } from './express-hop-proxy';
import { PREFIX, serve } from './hop-settings';

async function main(): Promise<void> {
  const redis = defineScripts(await connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'));
  const args = consumeArguments();
  const app = express();
  app.use(
    PREFIX,
    (_req, _res, next) => {
      redis.rlGatewayConsume(...args).then(() => next(), next);
    },
    hopProxy(),
  );
  serve(http.createServer(app));
}

void main();
