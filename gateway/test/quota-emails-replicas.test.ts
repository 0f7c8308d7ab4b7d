import pino from 'pino';
import { loadGatewayConfig } from '../src/config';
import { createGateway, type Gateway } from '../src/gateway';
import { TestSmtpServer } from '../../test/helpers/smtp-server';
import { sleep } from '../../test/helpers/ports';
import { ADMIN_TOKEN, publicGet } from './support/gateway';
import { useRedis } from './support/redis';

/** Two gateway replicas on one Redis, one real SMTP server: each quota email is sent once, whichever replica saw the crossing. */
const redis = useRedis();
let smtp: TestSmtpServer;
const replicas: Gateway[] = [];

beforeAll(async () => {
  smtp = await TestSmtpServer.start();
  for (let i = 0; i < 2; i++) {
    const config = loadGatewayConfig({ INTERNAL_JWT_SECRET: 'test-internal-secret-0123456789abcdef', ADMIN_TOKEN, TRUST_PROXY: 'loopback', PETS_URL: 'http://127.0.0.1:9', REDIS_URL: redis.url, SMTP_URL: smtp.url });
    // Closed by the Redis fixture, before it stops its server.
    replicas.push(redis.closeAfter(await createGateway(config, { logger: pino({ level: 'silent' }) })));
  }
});

afterAll(async () => {
  await smtp?.stop();
});

it('when requests of one account on two replicas cross 80 % and 100 % of its day quota, then its owner gets exactly one email for each', async () => {
  const [a, b] = replicas as [Gateway, Gateway];
  const account = await a.accounts.createAccount({ name: 'Two replicas', plan: 'free', email: 'owner@example.com' });
  // The quota before the key: each replica reads both when it first sees the key.
  await a.accounts.updateAccount(account.id, { perDay: 10 });
  const { key } = await a.accounts.createKey(account.id);
  for (let i = 0; i < 14; i++) await publicGet(i % 2 ? a : b, '/v1/pets', '198.51.100.20', key);
  const emails = await smtp.emailsTo('owner@example.com', 2);
  // Time for a duplicate, were there one, to arrive.
  await sleep(1_500);
  expect(smtp.received.map((email) => email.subject)).toEqual(["You have used 80 % of today's API quota", "Today's API quota is used up"]);
  expect(emails[0]!.text).toContain('used 8 of its 10 requests');
});
