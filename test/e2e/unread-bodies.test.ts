import { MIB, pour, rawRequest, within } from '../helpers/raw-socket';
import { TEST_ADMIN_TOKEN, createAccountWithKey, startSystem, type SystemHandle } from '../helpers/system';

/**
 * A refused request's body is never read (issue 17, item 5; on every port, issue 24, item 1): the
 * refusal closes the connection, and `Expect: 100-continue` is answered only once the key and the
 * limits have passed. Raw sockets against a real gateway process; every port and route in process
 * in gateway/test/unread-bodies.test.ts.
 */
let system: SystemHandle;
let port: number;
let key: string;

beforeAll(async () => {
  system = await startSystem();
  port = Number(new URL(system.gateways[0]!.url).port);
  ({ key } = await createAccountWithKey(system.gateways[0]!.adminUrl));
});
afterAll(() => system?.stop());

const open = (head: string) => rawRequest(port, head);

describe('bodies of refused requests', () => {
  it('when a request without a key announces a gigabyte, then 401 with Connection: close, and the connection ends after a little of it', async () => {
    const { socket, reply, closed } = open('POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n');
    const written = await pour(socket, 256 * MIB);
    await within(closed, 5_000);
    socket.destroy();
    expect(reply()).toMatch(/^HTTP\/1\.1 401 /);
    expect(reply()).toMatch(/\r\nconnection: close\r\n/i);
    // The kernel's buffers take some megabytes whatever the gateway does; a gateway reading on would take all 256.
    expect(written).toBeLessThan(64 * MIB);
  });

  it('when a portal form from the portal\'s own origin announces a gigabyte, then 413 with Connection: close, and the connection ends after a little of it', async () => {
    // As a browser on the portal's page sends it: Origin and the form cookie are right, so only the length is wrong.
    const { socket, reply, closed } = open(
      `POST /portal/login HTTP/1.1\r\nHost: localhost\r\nOrigin: http://localhost\r\nCookie: portal-form=${'f'.repeat(43)}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000000000\r\n\r\n`,
    );
    const written = await pour(socket, 256 * MIB);
    await within(closed, 5_000);
    socket.destroy();
    expect(reply()).toMatch(/^HTTP\/1\.1 413 /);
    expect(reply()).toMatch(/\r\nconnection: close\r\n/i);
    expect(written).toBeLessThan(64 * MIB);
  });

  it('when an admin request with a valid token announces a gigabyte, then 413 with Connection: close, and the connection ends after a little of it', async () => {
    const exchange = rawRequest(
      Number(new URL(system.gateways[0]!.adminUrl).port),
      `POST /admin/accounts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_ADMIN_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n`,
    );
    const written = await pour(exchange.socket, 256 * MIB);
    await within(exchange.closed, 5_000);
    exchange.socket.destroy();
    expect(exchange.reply()).toMatch(/^HTTP\/1\.1 413 /);
    expect(exchange.reply()).toMatch(/\r\nconnection: close\r\n/i);
    expect(written).toBeLessThan(64 * MIB);
  });

  it('when a request without a key expects 100-continue, then 401 and never 100 Continue', async () => {
    const { reply, closed } = open('POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 30\r\nExpect: 100-continue\r\n\r\n');
    await closed;
    expect(reply()).toMatch(/^HTTP\/1\.1 401 /);
    expect(reply()).not.toContain('100 Continue');
    expect(reply()).toMatch(/\r\nconnection: close\r\n/i);
  });

  it('when a request with a valid key expects 100-continue, then 100 Continue, and the body sent after it creates the pet: 201', async () => {
    const body = JSON.stringify({ name: 'Rex', categoryId: 1 });
    const { socket, reply, closed, head } = open(
      `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
    );
    expect(await head()).toBe('HTTP/1.1 100 Continue\r\n\r\n');
    socket.write(body);
    await closed;
    expect(reply()).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
  });
});
