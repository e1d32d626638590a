import { Counter, Histogram, Registry } from 'prom-client';

import { SeriesCounter, SeriesHistogram } from './series.js';

/** The same observations through prom-client's own metric and through ours: the scrape text must be identical. */
describe('series metrics', () => {
  const buckets = [0.001, 0.01, 0.1, 1];
  const observations: [string, string, number][] = [
    ['/a', '200', 0.0004],
    ['/a', '200', 0.001], // on a bound: counted in it (le is "less or equal")
    ['/a', '200', 0.05],
    ['/a', '404', 3],
    ['/b "quoted"\\', '200', 0.2],
    ['/a', '200', 1e-9],
  ];

  it('exposes a histogram exactly as prom-client does', async () => {
    const theirs = new Registry();
    const ours = new Registry();
    const reference = new Histogram({
      name: 'h_seconds',
      help: 'help text',
      labelNames: ['route', 'status'],
      buckets,
      registers: [theirs],
    });
    const histogram = new SeriesHistogram({
      name: 'h_seconds',
      help: 'help text',
      labelNames: ['route', 'status'],
      buckets: [...buckets].reverse(),
      registers: [ours],
    });
    for (const [route, status, value] of observations) {
      reference.observe({ route, status }, value);
      histogram.seriesOf(route, Number(status)).observe(value);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it('exposes a counter exactly as prom-client does, and keeps resolved series through a reset', async () => {
    const theirs = new Registry();
    const ours = new Registry();
    const reference = new Counter({
      name: 'c_total',
      help: 'help text',
      labelNames: ['route', 'status'],
      registers: [theirs],
    });
    const counter = new SeriesCounter({
      name: 'c_total',
      help: 'help text',
      labelNames: ['route', 'status'],
      registers: [ours],
    });
    for (const [route, status] of observations) {
      reference.inc({ route, status });
      counter.series({ route, status }).inc();
    }
    reference.inc({ route: '/a', status: '200' }, 5);
    counter.series({ route: '/a', status: '200' }).inc(5);
    expect(await ours.metrics()).toBe(await theirs.metrics());

    expect(counter.seriesOf('/a', 200)).toBe(counter.series({ route: '/a', status: '200' }));
    expect(() => counter.seriesOf('/only-one-label')).toThrow('c_total has labels route, status');
    expect(() => counter.seriesOf('/a')).toThrow('c_total has labels route, status'); // a prefix of a known series
    const kept = counter.series({ route: '/a', status: '200' });
    ours.resetMetrics();
    kept.inc();
    expect(await ours.metrics()).toContain('c_total{route="/a",status="200"} 1\n');
    expect(await ours.metrics()).toContain('c_total{route="/a",status="404"} 0\n');
  });
});
