import type { AddressInfo } from 'node:net';
import { createDrainableServer, type DrainableServer } from '../../shared/src/http-server';
import { MIB, dribble, pour, rawRequest, within } from '../../test/helpers/raw-socket';
import { startTestService, type TestPetsService } from './support';

/**
 * The pets-service reads a body as the gateway does (issue 24, item 1): a declared length over
 * 16 KiB is refused at once without reading it, and a body slower than BODY_TIMEOUT_MS gets 408;
 * both close the connection. Raw sockets against the service on a real server.
 */
const BODY_TIMEOUT_MS = 1_000;
let service: TestPetsService;
let server: DrainableServer;
let port: number;

beforeAll(async () => {
  service = await startTestService({ bodyTimeoutMs: BODY_TIMEOUT_MS });
  server = createDrainableServer(service.app, { headersTimeoutMs: 10_000, requestTimeoutMs: 120_000, keepAliveTimeoutMs: 5_000 }, { draining: false });
  await server.listen(0, '127.0.0.1');
  port = (server.server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.cut();
  await server.drain();
  await service.close();
});

const head = (length: number) => `POST /pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${service.auth}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

describe('bodies the pets-service does not read', () => {
  it('when a create announces a gigabyte, then 413 at once with Connection: close, and the connection ends after a little of it', async () => {
    const exchange = rawRequest(port, head(1_000_000_000));
    const written = await pour(exchange.socket, 96 * MIB);
    await within(exchange.closed, 10_000);
    exchange.socket.destroy();
    expect(exchange.reply()).toMatch(/^HTTP\/1\.1 413 /);
    expect(exchange.reply()).toMatch(/\r\nconnection: close\r\n/i);
    expect(exchange.reply()).toContain('"code":"payload_too_large"');
    expect(written).toBeLessThan(32 * MIB);
    expect(await service.countPets()).toBe(0);
  });

  it('when a create arrives a byte every half second, then 408 request_timeout and the connection is closed', async () => {
    const started = Date.now();
    const exchange = rawRequest(port, head(200));
    const stop = dribble(exchange.socket, ' '.repeat(200), 500);
    // Generous: only the body deadline (1 s) can answer before it, the server's backstop is 120 s.
    await within(exchange.closed, BODY_TIMEOUT_MS + 9_000);
    stop();
    exchange.socket.destroy();
    expect(exchange.reply()).toMatch(/^HTTP\/1\.1 408 /);
    expect(exchange.reply()).toMatch(/\r\nconnection: close\r\n/i);
    expect(exchange.reply()).toContain('"code":"request_timeout"');
    expect(Date.now() - started).toBeLessThan(BODY_TIMEOUT_MS + 9_000);
  });
});
