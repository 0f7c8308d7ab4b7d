/**
 * The proxy of both Express yardsticks (`express-hop.ts`, `express-hop-redis.ts`, `express-hop-raw-redis.ts`):
 * `createProxyMiddleware` (http-proxy-middleware 3) with the hops' pool and internal token, mounted
 * on `/v1` (Express strips the mount path, and HPM 3 forwards `req.url`).
 */
import { createProxyMiddleware } from 'http-proxy-middleware';
import { agent, serviceAuthorization, target } from './hop-settings';

export const hopProxy = () =>
  createProxyMiddleware({
    target: target.origin,
    agent,
    changeOrigin: true,
    on: { proxyReq: (proxyReq) => proxyReq.setHeader('authorization', serviceAuthorization()) },
  });
