import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { parse } from 'yaml';
import type { Gateway } from '../src/gateway';
import { ADMIN_TOKEN, startGateway } from './support/gateway';

/**
 * What an operator installs (deploy/): the alerting rules and the Grafana dashboard must name only
 * metrics the gateway really exports, read from its real `/metrics` (the pets-service exports none
 * of its own: the gateway reports each replica it calls), and the rules must load in Prometheus.
 */

const DEPLOY = path.join(__dirname, '..', '..', 'deploy');
const PROMTOOL = '/usr/bin/promtool';
/** Prometheus's own series about each scrape target: no service exports it. */
const PROMETHEUS_SERIES = new Set(['up']);
/**
 * The webhook deliveries' metrics (gateway/src/webhooks/metrics.ts), named by rules and panels
 * before the webhooks were merged here: accepted unexported only while the gateway exports no
 * `webhook_` metric at all; once it exports one, each is checked like every other name.
 */
const AWAITED = new Set(['webhook_deliveries_pending', 'webhook_deliveries_total']);

/** The metric names in a PromQL expression: every `gateway_…` and `webhook_…` name, and Prometheus's `up`. */
function metricsIn(expr: string): string[] {
  const names = [...expr.matchAll(/\b((?:gateway|webhook)_[a-z0-9_]+)/g)].map((match) => match[1]!);
  if (/\bup\{/.test(expr)) names.push('up');
  return names;
}

/** A histogram's series (`_bucket`, `_sum`, `_count`) name the histogram. */
function baseName(name: string, histograms: Set<string>): string {
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return histograms.has(base) ? base : name;
}

interface Dashboard {
  panels: { title: string; targets: { expr: string }[] }[];
}
interface RuleFile {
  groups: { name: string; rules: { alert: string; expr: string }[] }[];
}

describe('deploy/: alerts and dashboard', () => {
  let gateway: Gateway;
  let exported: Set<string>;
  let histograms: Set<string>;

  beforeAll(async () => {
    gateway = await startGateway();
    const scrape = await request(gateway.adminApp).get('/metrics').set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(scrape.status).toBe(200);
    const types = [...scrape.text.matchAll(/^# TYPE (\S+) (\S+)$/gm)];
    exported = new Set(types.map((match) => match[1]!));
    histograms = new Set(types.filter((match) => match[2] === 'histogram').map((match) => match[1]!));
  });

  afterAll(async () => {
    await gateway?.close();
  });

  const webhooksExported = () => [...exported].some((name) => name.startsWith('webhook_'));
  const known = (name: string) => PROMETHEUS_SERIES.has(name) || exported.has(baseName(name, histograms)) || (AWAITED.has(name) && !webhooksExported());

  it('when the dashboard is read, then every panel queries at least one metric, and each metric it names is exported (the webhook ones once webhooks are there)', () => {
    const dashboard = JSON.parse(readFileSync(path.join(DEPLOY, 'grafana', 'animal-store.json'), 'utf8')) as Dashboard;
    expect(dashboard.panels.length).toBeGreaterThan(5);
    for (const panel of dashboard.panels) {
      const names = panel.targets.flatMap((target) => metricsIn(target.expr));
      expect({ panel: panel.title, names: names.length > 0 }).toEqual({ panel: panel.title, names: true });
      expect({ panel: panel.title, unknown: names.filter((name) => !known(name)) }).toEqual({ panel: panel.title, unknown: [] });
    }
  });

  it('when the alerting rules are read, then each names exported metrics (the webhook ones once webhooks are there)', () => {
    const rules = parse(readFileSync(path.join(DEPLOY, 'prometheus', 'alerts.yml'), 'utf8')) as RuleFile;
    const alerts = rules.groups.flatMap((group) => group.rules);
    expect(alerts.map((rule) => rule.alert)).toEqual(
      expect.arrayContaining(['GatewayReplicaDown', 'GatewayServerErrors', 'GatewayLatencyHigh', 'GatewayLimiterInProcess', 'GatewayRedisUnreachable', 'WebhookDeliveriesPending', 'WebhookDeliveriesFailing']),
    );
    for (const rule of alerts) {
      const names = metricsIn(rule.expr);
      expect({ alert: rule.alert, names: names.length > 0 }).toEqual({ alert: rule.alert, names: true });
      expect({ alert: rule.alert, unknown: names.filter((name) => !known(name)) }).toEqual({ alert: rule.alert, unknown: [] });
    }
  });

  // Debian's prometheus package brings promtool (.ci/run installs it); without it this check cannot run here.
  if (!existsSync(PROMTOOL)) console.warn(`promtool check skipped: ${PROMTOOL} is missing (apt-get install prometheus)`);
  (existsSync(PROMTOOL) ? it : it.skip)('when promtool checks the alerting rules, then they are valid Prometheus rules', () => {
    const output = execFileSync(PROMTOOL, ['check', 'rules', path.join(DEPLOY, 'prometheus', 'alerts.yml')], { encoding: 'utf8' });
    expect(output).toMatch(/SUCCESS: \d+ rules found/);
  });
});
