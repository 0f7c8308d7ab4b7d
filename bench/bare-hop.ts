/**
 * The bench's first yardstick: the least a hop in front of the pets-service can do. A bare
 * `node:http` server that puts an internal token in place of the client's Authorization, strips the
 * public `/v1` prefix, and pipes request and response through a keep-alive pool. No key check, no
 * limits, no logging, no metrics: what the gateway costs above this is what its features (and their
 * implementation, Express and http-proxy-middleware included) cost. Settings: `hop-settings.ts`.
 */
import http from 'node:http';
import { PREFIX, agent, serve, serviceAuthorization, target } from './hop-settings';

serve(
  http.createServer((req, res) => {
    const url = req.url?.startsWith(PREFIX) ? req.url.slice(PREFIX.length) : (req.url ?? '/');
    const headers = { ...req.headers, authorization: serviceAuthorization(), host: target.host };
    const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: url, headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('bad gateway');
    });
    req.pipe(upstream);
  }),
);
