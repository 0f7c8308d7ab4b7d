import express from 'express';
import pino from 'pino';
import request from 'supertest';
import { accessLog } from '../../shared/src/access-log';
import { createMetrics } from './metrics';

describe('gateway metrics', () => {
  it('when requests are answered, then they are counted by method and status and timed by method', async () => {
    const metrics = createMetrics({ isDegraded: () => false, defaultMetrics: false });
    const app = express();
    // As the gateway wires them: the access log's listener reports each response to the metrics.
    app.use(accessLog(app, pino({ enabled: false }), undefined, { onResponse: metrics.observeResponse }));
    app.get('/ok', (_req, res) => {
      res.json({});
    });
    for (let i = 0; i < 3; i++) await request(app).get('/ok').expect(200);
    await request(app).post('/ok').expect(404);
    const text = await metrics.registry.metrics();
    expect(text).toContain('gateway_http_requests_total{method="GET",status="200"} 3');
    expect(text).toContain('gateway_http_requests_total{method="POST",status="404"} 1');
    expect(text).toContain('gateway_http_request_duration_seconds_count{method="GET"} 3');
    expect(text).toMatch(/gateway_rate_limiter_degraded 0/);
  });

  it('when the limiter decides, then each decision is counted by outcome and caller, each pair on its own', async () => {
    const metrics = createMetrics({ isDegraded: () => false, defaultMetrics: false });
    for (const [outcome, caller] of [['allowed', 'key'], ['allowed', 'key'], ['allowed', 'anonymous'], ['limited', 'key'], ['banned', 'key']] as const) metrics.recordDecision(outcome, caller);
    const text = await metrics.registry.metrics();
    expect(text).toContain('gateway_rate_limit_decisions_total{outcome="allowed",caller="key"} 2');
    expect(text).toContain('gateway_rate_limit_decisions_total{outcome="allowed",caller="anonymous"} 1');
    expect(text).toContain('gateway_rate_limit_decisions_total{outcome="limited",caller="key"} 1');
    expect(text).toContain('gateway_rate_limit_decisions_total{outcome="banned",caller="key"} 1');
  });
});
