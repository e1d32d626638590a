import type { Metric, Registry } from 'prom-client';

/**
 * Counters and histograms for the per-request path, exposed through a prom-client registry.
 *
 * prom-client finds the series of every `inc(labels)` / `observe(labels, v)` by validating the label
 * object and building a string key from it: about 5,800 instructions per observation in our callgrind
 * runs, more than a cache hit's own lookup. Here a label combination is resolved to its series
 * once and found again through one map per label (`seriesOf(...values)`, the per-request lookup), and
 * counting is plain arithmetic on that object.
 *
 * The registry exposes them like its own metrics: it reads a metric's name, help, type and aggregator,
 * calls get() on a scrape and reset() on resetMetrics(). The scrape text is checked against
 * prom-client's own Counter and Histogram in series.spec.ts. Two differences: reset() zeroes the
 * series instead of removing them (callers keep the series they resolved), and get() puts every label
 * in `labels` (prom-client's JSON form moves some to `sharedLabels`; the text is the same).
 */
abstract class SeriesFamily<L extends string, S extends { labels: Readonly<Record<L, string>> }> {
  readonly aggregator = 'sum';
  protected readonly all = new Map<string, S>();
  /** seriesOf's lookup: one map per label, in labelNames order, the series at the leaves. */
  private readonly tree = new Map<string | number, unknown>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly L[],
    registers: readonly Registry[],
  ) {
    // prom-client's Metric type names its own classes; its registry needs only the members above.
    for (const registry of registers) registry.registerMetric(this as unknown as Metric);
  }

  /** The series of these label values, created on first use. Resolve it once and keep it: this builds a key. */
  series(labels: Readonly<Record<L, string>>): S {
    const key = this.labelNames.map((name) => labels[name]).join('\u0000');
    let found = this.all.get(key);
    if (!found) {
      found = this.create({ ...labels });
      this.all.set(key, found);
    }
    return found;
  }

  /**
   * The series of these label values, in labelNames order (a number stands for its decimal text):
   * the per-request lookup, one map per label and no key built.
   */
  seriesOf(...values: (string | number)[]): S {
    if (values.length !== this.labelNames.length)
      throw new Error(`${this.name} has labels ${this.labelNames.join(', ')}`);
    let level = this.tree;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let next = level.get(values[i]) as Map<string | number, unknown> | undefined;
      if (!next) level.set(values[i], (next = new Map()));
      level = next;
    }
    let found = level.get(values[last]) as S | undefined;
    if (!found) {
      found = this.series(
        Object.fromEntries(this.labelNames.map((name, i) => [name, String(values[i])])) as Record<L, string>,
      );
      level.set(values[last], found);
    }
    return found;
  }

  /** Zeroes every series; callers keep the series they resolved, so none is dropped. */
  reset(): void {
    for (const s of this.all.values()) this.zero(s);
  }

  protected abstract create(labels: Readonly<Record<L, string>>): S;
  protected abstract zero(series: S): void;
}

export class CounterSeries<L extends string = string> {
  value = 0;

  constructor(readonly labels: Readonly<Record<L, string>>) {}

  inc(by = 1): void {
    this.value += by;
  }
}

export class SeriesCounter<L extends string> extends SeriesFamily<L, CounterSeries<L>> {
  readonly type = 'counter';

  constructor(config: { name: string; help: string; labelNames: readonly L[]; registers: readonly Registry[] }) {
    super(config.name, config.help, config.labelNames, config.registers);
  }

  get(): Promise<{
    name: string;
    help: string;
    type: string;
    aggregator: string;
    values: { labels: Record<string, string>; value: number }[];
  }> {
    const values = [...this.all.values()].map((s) => ({ labels: { ...s.labels }, value: s.value }));
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  protected create(labels: Readonly<Record<L, string>>): CounterSeries<L> {
    return new CounterSeries(labels);
  }

  protected zero(series: CounterSeries<L>): void {
    series.value = 0;
  }
}

export class HistogramSeries<L extends string = string> {
  /** Observations per bucket, not cumulative; the last slot counts those above every bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<L, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    this.counts[i]++;
    this.sum += value;
    this.count++;
  }
}

export class SeriesHistogram<L extends string> extends SeriesFamily<L, HistogramSeries<L>> {
  readonly type = 'histogram';
  private readonly bounds: readonly number[];

  constructor(config: {
    name: string;
    help: string;
    labelNames: readonly L[];
    buckets: readonly number[];
    registers: readonly Registry[];
  }) {
    super(config.name, config.help, config.labelNames, config.registers);
    this.bounds = [...config.buckets].sort((a, b) => a - b);
  }

  get(): Promise<{
    name: string;
    help: string;
    type: string;
    aggregator: string;
    values: { metricName: string; labels: Record<string, string | number>; value: number }[];
  }> {
    const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
    for (const s of this.all.values()) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += s.counts[i];
        values.push({ metricName: `${this.name}_bucket`, labels: { le, ...s.labels }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf', ...s.labels }, value: s.count });
      values.push({ metricName: `${this.name}_sum`, labels: { ...s.labels }, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels: { ...s.labels }, value: s.count });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  protected create(labels: Readonly<Record<L, string>>): HistogramSeries<L> {
    return new HistogramSeries(labels, this.bounds);
  }

  protected zero(series: HistogramSeries<L>): void {
    series.counts.fill(0);
    series.sum = 0;
    series.count = 0;
  }
}
