import { waitFor, sleep } from '../../test/helpers/ports';
import type { DomainEvent } from '../src/events/types';
import type { Gateway } from '../src/gateway';
import { createKey, publicGet, startGateway } from './support/gateway';
import { useRedis } from './support/redis';

const redis = useRedis();

/** Requests on `/v1/pets` with the key (refused upstream with 502: nobody listens on PETS_URL; the limiter counted them). */
async function spend(gateways: Gateway[], key: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await publicGet(gateways[i % gateways.length] as Gateway, '/v1/pets', '203.0.113.7', key);
}

function listen(gateways: Gateway[]): DomainEvent[] {
  const heard: DomainEvent[] = [];
  for (const gateway of gateways) gateway.events.subscribe((event) => void heard.push(event));
  return heard;
}

describe('quota events from the rate-limit stage', () => {
  const opened: Gateway[] = [];
  afterEach(async () => {
    for (const gateway of opened.splice(0)) await gateway.close();
  });

  it.each([
    ['one gateway in process', 1, false],
    ['two gateway replicas on one Redis', 2, true],
  ])('%s: crossing 80 %% and 100 %% of the day quota publishes quota.warning then quota.exhausted, each once', async (_name, replicas, onRedis) => {
    if (onRedis) await redis.reset();
    const env: Record<string, string> = onRedis ? { REDIS_URL: redis.url } : {};
    for (let i = 0; i < replicas; i++) opened.push(await startGateway(env));
    const first = opened[0] as Gateway;
    const { accountId, key } = await createKey(first);
    await first.accounts.updateAccount(accountId, { perDay: 10 });
    const heard = listen(opened);
    await spend(opened, key, 7);
    await sleep(100);
    expect(heard).toEqual([]);
    await spend(opened, key, 8);
    await waitFor(() => heard.length >= 2, 10_000, 'two quota events');
    await sleep(300);
    expect(heard.map((event) => [event.type, event.accountId, event.data])).toEqual([
      ['quota.warning', accountId, expect.objectContaining({ window: 'day', used: 8, quota: 10 })],
      ['quota.exhausted', accountId, expect.objectContaining({ window: 'day', used: 10, quota: 10 })],
    ]);
  });
});
