import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { waitFor } from '../helpers/ports';
import { createAccountWithKey, startSystem, TEST_ADMIN_TOKEN, type GatewayHandle, type SystemHandle } from '../helpers/system';

/** The processes whose parent is `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The fields after the command name, which is in parentheses and may hold spaces.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid) children.push(Number(entry));
    } catch {
      // the process ended while being read
    }
  }
  return children;
}

/** One GET on a connection of its own (no keep-alive), so the primary hands each to a worker afresh. */
function getOnNewConnection(url: string, authorization: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false, headers: { authorization, connection: 'close' } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

const statusOf = async (url: string, key: string) => (await getOnNewConnection(url, `Bearer ${key}`)).status;

async function scrape(gateway: GatewayHandle): Promise<string> {
  const response = await fetch(`${gateway.adminUrl}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
  expect(response.status).toBe(200);
  return response.text();
}

function sample(metrics: string, series: string): number {
  const line = metrics.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('GATEWAY_WORKERS=2 (one port, two worker processes, Redis shared)', () => {
  let system: SystemHandle;
  let gateway: GatewayHandle;
  let primary: number;

  beforeEach(async () => {
    // Three processes load the gateway's code (the primary, two workers): given time for a loaded machine.
    system = await startSystem({ redis: true, gatewayEnv: { GATEWAY_WORKERS: '2', LOG_LEVEL: 'info' }, gatewayStartMs: 45_000 });
    gateway = system.gateways[0]!;
    primary = gateway.process.child.pid!;
    // The primary prints its banner once both workers listen.
    await waitFor(() => gateway.process.output.includes('Redis, 2 workers'), 30_000, 'both workers ready');
  }, 200_000);
  afterEach(() => system?.stop());

  it('when requests arrive on separate connections, then both workers answer them, the account limit is exact across the workers, and /metrics sums both', async () => {
    expect(childrenOf(primary)).toHaveLength(2);
    const { key } = await createAccountWithKey(gateway.adminUrl, { perMinute: 10 });
    const before = await scrape(gateway);

    const statuses: number[] = [];
    for (let i = 0; i < 16; i += 1) statuses.push(await statusOf(`${gateway.url}/v1/pets`, key));
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(6);

    const after = await scrape(gateway);
    expect(sample(after, 'gateway_http_requests_total{method="GET",status="429"}') - sample(before, 'gateway_http_requests_total{method="GET",status="429"}')).toBe(6);
    expect(sample(after, 'gateway_rate_limit_decisions_total{outcome="allowed",caller="key"}')).toBe(10);
    expect(sample(after, 'gateway_rate_limiter_degraded')).toBe(0);

    // Each worker writes its own access lines (buffered: flushed within half a second).
    await waitFor(() => servedBy(gateway.process.output).size === 2, 3_000, 'access lines from both workers');
    expect([...servedBy(gateway.process.output)].every((pid) => childrenOf(primary).includes(pid))).toBe(true);
  });

  it('when a worker is killed, then another takes its place and requests keep being answered', async () => {
    const { key } = await createAccountWithKey(gateway.adminUrl, { plan: 'enterprise', perMinute: 1_000_000, perDay: 1_000_000_000 });
    const [victim, survivor] = childrenOf(primary);
    process.kill(victim!, 'SIGKILL');
    await waitFor(() => {
      const now = childrenOf(primary);
      return now.length === 2 && !now.includes(victim!) && now.includes(survivor!);
    }, 10_000, 'a replacement worker');
    await waitFor(() => gateway.process.output.includes('a gateway worker died; starting another'), 2_000, 'the restart logged');

    const statuses = await Promise.all(Array.from({ length: 20 }, () => statusOf(`${gateway.url}/v1/pets`, key)));
    expect(statuses).toEqual(Array(20).fill(200));
  });

  it('when the primary gets SIGTERM, then every worker drains and the primary exits 0', async () => {
    const workers = childrenOf(primary);
    expect(workers).toHaveLength(2);
    const code = await gateway.process.stop('SIGTERM');
    expect(code).toBe(0);
    expect(workers.filter(existsProcess)).toEqual([]);
  });

  it('the ops API answers from any worker: an account made through one is seen through the others', async () => {
    const { accountId } = await createAccountWithKey(gateway.adminUrl, { name: 'Shared' });
    for (let i = 0; i < 6; i += 1) {
      // Fresh connections land on either worker.
      const found = await getOnNewConnection(`${gateway.adminUrl}/admin/accounts/${accountId}`, `Bearer ${TEST_ADMIN_TOKEN}`);
      expect(found.status).toBe(200);
      expect(JSON.parse(found.body)).toMatchObject({ id: accountId, name: 'Shared' });
    }
  });
});

function servedBy(output: string): Set<number> {
  const pids = new Set<number>();
  for (const line of output.split('\n')) {
    if (!line.includes('"url":"/v1/pets"')) continue;
    const match = /"pid":(\d+)/.exec(line);
    if (match) pids.add(Number(match[1]));
  }
  return pids;
}

function existsProcess(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
