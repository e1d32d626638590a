// The alert rules and the Grafana dashboard in ops/: promtool checks and unit-tests the rules, and every
// metric either of them queries must be one a live gateway really exports.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

import { type Stack, startStack } from './support/stack.js';

const ALERTS = 'ops/prometheus/alerts.yml';
const ALERTS_TEST = 'ops/prometheus/alerts.test.yml';
const DASHBOARD = 'ops/grafana/gateway-dashboard.json';
const OUR_METRIC = /\b(?:gateway|ratelimit|catalog)_[a-z0-9_]+/g;
const HISTOGRAM_SERIES = /_(?:bucket|count|sum)$/;

function metricNamesIn(text: string): string[] {
  return [...new Set(text.match(OUR_METRIC) ?? [])].map((name) => name.replace(HISTOGRAM_SERIES, '')).sort();
}

describe('ops/ alerts and dashboard', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  it('passes promtool check rules and the rule unit tests, and every rule has a unit test', () => {
    const rules = [...readFileSync(ALERTS, 'utf8').matchAll(/^\s*- alert: (\S+)/gm)].map((m) => m[1]);
    const tested = new Set([...readFileSync(ALERTS_TEST, 'utf8').matchAll(/^\s*alertname: (\S+)/gm)].map((m) => m[1]));
    expect(rules.length).toBeGreaterThan(10);
    expect(execFileSync('promtool', ['check', 'rules', ALERTS], { encoding: 'utf8' })).toContain(
      `SUCCESS: ${rules.length} rules found`,
    );
    expect(rules.filter((rule) => !tested.has(rule))).toEqual([]);
    expect(execFileSync('promtool', ['test', 'rules', ALERTS_TEST], { encoding: 'utf8' })).toMatch(/SUCCESS/);
  });

  it('queries only metrics the gateway exports', async () => {
    const exposition = await (await fetch(`${stack.url}/metrics`)).text();
    const exported = new Set([...exposition.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: { targets: { expr: string }[] }[] };
    const queried = metricNamesIn(dashboard.panels.flatMap((panel) => panel.targets.map((t) => t.expr)).join('\n'));
    const alerted = metricNamesIn(readFileSync(ALERTS, 'utf8'));
    expect(queried.length).toBeGreaterThan(10);
    expect(alerted.length).toBeGreaterThan(5);
    expect([...queried, ...alerted].filter((name) => !exported.has(name))).toEqual([]);
  });
});
