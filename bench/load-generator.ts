/**
 * The load generator: a process of its own, driven by the bench over IPC (`child_process.fork`).
 * A separate process so that its CPU is never counted against the process under test, and so that
 * it can be read from /proc like the others (the bench reports it, and warns when the generator
 * nears a full core and may be what limits the rate).
 *
 * - As fast as the server answers (closed loop): autocannon, `connections` requests in flight.
 * - At a fixed rate (open loop): our own pacer. autocannon's `overallRate` lets each connection send
 *   its quota for the second back to back and then wait for the next second, so at "half the
 *   maximum rate" it still measures bursts at full load; the pacer spreads requests evenly.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import autocannon from 'autocannon';
import type { LoadOrder, LoadOutcome } from './load-protocol';

function asFastAsPossible(order: LoadOrder): Promise<LoadOutcome> {
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    let next = 0;
    const keys = order.rotateKeys;
    const url = new URL(order.url);
    const started = performance.now();
    const instance = autocannon(
      {
        url: order.url,
        connections: order.connections,
        duration: order.seconds,
        amount: order.amount,
        // Refusals (401, 429) are the answer being measured in some scenarios: keep their latencies too.
        excludeErrorStats: false,
        requests: [
          {
            method: order.method as autocannon.Request['method'],
            path: url.pathname + url.search,
            headers: order.headers,
            body: order.body,
            ...((keys && keys.length > 0) || order.uniqueHeader
              ? {
                  setupRequest: (request: autocannon.Request) => {
                    request.headers = { ...request.headers };
                    if (keys && keys.length > 0) request.headers.authorization = `Bearer ${keys[next++ % keys.length]}`;
                    if (order.uniqueHeader) request.headers[order.uniqueHeader] = randomUUID();
                    return request;
                  },
                }
              : {}),
          },
        ],
      },
      (error, result) => {
        if (error) {
          reject(error);
          return;
        }
        const statuses: Record<string, number> = {};
        for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = stat.count ?? 0;
        resolve({
          requests: latencies.length,
          seconds: (performance.now() - started) / 1000,
          statuses,
          errors: result.errors,
          timeouts: result.timeouts,
          latenciesMs: order.recordLatencies ? Float64Array.from(latencies) : new Float64Array(0),
        });
      },
    );
    // autocannon's own histogram has 1 ms resolution; the differences we look for are below that.
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTimeMs: number) => {
      latencies.push(responseTimeMs);
    });
  });
}

/** Sends `overallRate` requests per second evenly spaced; latency is from sending to the last byte. */
function paced(order: LoadOrder, rate: number): Promise<LoadOutcome> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: order.connections });
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let inFlight = 0;
  const interval = 1000 / rate;
  const started = performance.now();
  const endAt = started + order.seconds * 1000;
  let nextAt = started;

  return new Promise((resolve) => {
    const finish = () => {
      agent.destroy();
      resolve({
        requests: latencies.length,
        seconds: (performance.now() - started) / 1000,
        statuses,
        errors,
        timeouts: 0,
        latenciesMs: order.recordLatencies ? Float64Array.from(latencies) : new Float64Array(0),
      });
    };
    const settle = () => {
      inFlight -= 1;
      if (inFlight === 0 && nextAt >= endAt) finish();
    };
    const send = () => {
      inFlight += 1;
      const sentAt = performance.now();
      const headers = order.uniqueHeader ? { ...order.headers, [order.uniqueHeader]: randomUUID() } : order.headers;
      const request = http.request(order.url, { method: order.method, headers, agent }, (response) => {
        response.resume();
        response.once('end', () => {
          latencies.push(performance.now() - sentAt);
          statuses[String(response.statusCode)] = (statuses[String(response.statusCode)] ?? 0) + 1;
          settle();
        });
      });
      request.once('error', () => {
        errors += 1;
        settle();
      });
      request.end(order.body);
    };
    const tick = () => {
      const now = performance.now();
      while (nextAt <= now && nextAt < endAt) {
        send();
        nextAt += interval;
      }
      if (nextAt < endAt) setTimeout(tick, Math.max(0, nextAt - performance.now()));
      else if (inFlight === 0) finish();
    };
    tick();
  });
}

function run(order: LoadOrder): Promise<LoadOutcome> {
  return order.overallRate ? paced(order, order.overallRate) : asFastAsPossible(order);
}

process.on('message', (order: LoadOrder) => {
  run(order).then(
    (outcome) => process.send?.({ ok: true, outcome }),
    (error: Error) => process.send?.({ ok: false, error: error.stack ?? error.message }),
  );
});
process.send?.({ ready: true });
