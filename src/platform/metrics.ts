import { STATUS_CODES } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * The platform's metrics in Prometheus's text format (version 0.0.4), kept by hand: a handful of
 * counters, gauges and histograms do not need a client library, and recording one is a map lookup
 * and an addition on the request path. Labels are the solution, the function and the outcome (a
 * code): bounded by what is published, never a caller's free text.
 */

type Labels = Readonly<Record<string, string>>;

/** `{a="x",b="y"}`, values escaped as the format says (backslash, quote, line feed). */
function labelText(labels: Labels): string {
  const pairs = Object.entries(labels).map(
    ([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`,
  );
  return pairs.length > 0 ? `{${pairs.join(',')}}` : '';
}

/**
 * A series' key in its map: the label values (each metric records its labels in one order). The
 * text of the labels is built when scraped, not on every record.
 */
function seriesKey(labels: Labels): string {
  let key = '';
  for (const name in labels) key += `${labels[name]}\u0000`;
  return key;
}

interface Metric {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  lines(): string[];
}

export class Counter implements Metric {
  readonly type = 'counter';
  private readonly values = new Map<string, { labels: Labels; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    const key = seriesKey(labels);
    const entry = this.values.get(key);
    if (entry) entry.value += by;
    else this.values.set(key, { labels, value: by });
  }

  lines(): string[] {
    return [...this.values.values()].map(({ labels, value }) => `${this.name}${labelText(labels)} ${value}`);
  }
}

/**
 * A value read when the metrics are asked for (pool sizes, queue depths); a `counter` when what is
 * read only grows (counts kept elsewhere, such as the workers' solution caches).
 */
export class Gauge implements Metric {
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly read: () => ReadonlyArray<readonly [Labels, number]>,
    readonly type: 'gauge' | 'counter' = 'gauge',
  ) {}

  lines(): string[] {
    return this.read().map(([labels, value]) => `${this.name}${labelText(labels)} ${value}`);
  }
}

/** Seconds, in buckets from 5 ms to 60 s: an execution's range, from a cached answer to the ceiling. */
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export class Histogram implements Metric {
  readonly type = 'histogram';
  private readonly series = new Map<
    string,
    { labels: Labels; counts: number[]; sum: number; count: number }
  >();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: readonly number[] = SECONDS,
  ) {}

  observe(value: number, labels: Labels = {}): void {
    const key = seriesKey(labels);
    let s = this.series.get(key);
    if (!s) {
      s = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]!) s.counts[i]!++;
    s.sum += value;
    s.count++;
  }

  lines(): string[] {
    const out: string[] = [];
    for (const { labels, counts, sum, count } of this.series.values()) {
      this.buckets.forEach((le, i) => {
        out.push(`${this.name}_bucket${labelText({ ...labels, le: String(le) })} ${counts[i]}`);
      });
      out.push(`${this.name}_bucket${labelText({ ...labels, le: '+Inf' })} ${count}`);
      out.push(`${this.name}_sum${labelText(labels)} ${sum}`);
      out.push(`${this.name}_count${labelText(labels)} ${count}`);
    }
    return out;
  }
}

/**
 * A status as a label: the statuses HTTP names as they are, any other (a service may answer 299 or
 * 999) as its class (`2xx`), so that a service cannot make hundreds of series. Codes pass through.
 */
function statusLabel(outcome: string): string {
  if (!/^\d{3}$/.test(outcome)) return outcome;
  return STATUS_CODES[outcome] === undefined ? `${outcome[0]}xx` : outcome;
}

/** What the platform records, and the gauges it reads from its parts when asked. */
export class PlatformMetrics {
  readonly executions = new Counter(
    'restfn_executions_total',
    'Executions (execute, call and previews) by solution, function and outcome (ok, skipped or an error code).',
  );
  readonly executionSeconds = new Histogram(
    'restfn_execution_duration_seconds',
    'Time of a whole execution on the platform (queueing for a worker, the calls, retries and transforms), by solution.',
  );
  readonly remoteCalls = new Counter(
    'restfn_remote_calls_total',
    'Requests sent to remote services (each attempt), by solution, function and outcome (the status answered, or the code of a failure that left no answer).',
  );
  readonly remoteCallSeconds = new Histogram(
    'restfn_remote_call_duration_seconds',
    'Time of one request to a remote service (redirects included, from sending to the whole body read), by solution.',
  );
  readonly retries = new Counter(
    'restfn_retries_total',
    'Retries decided after a failed attempt (an error handler or the defaults), by solution and function.',
  );
  readonly storeErrors = new Counter(
    'restfn_store_errors_total',
    "Requests that failed because the platform's database could not be reached (STORE_UNAVAILABLE).",
  );
  private readonly loopDelay = monitorEventLoopDelay({ resolution: 20 });
  private readonly gauges: Gauge[] = [];

  constructor() {
    this.loopDelay.enable();
  }

  /** A gauge read at each scrape. */
  gauge(
    name: string,
    help: string,
    read: () => ReadonlyArray<readonly [Labels, number]>,
    type: 'gauge' | 'counter' = 'gauge',
  ): void {
    this.gauges.push(new Gauge(name, help, read, type));
  }

  /** Records one execution's outcome and duration. */
  executed(solution: string, target: string, outcome: string, seconds: number): void {
    this.executions.inc({ solution, function: target, outcome });
    this.executionSeconds.observe(seconds, { solution });
    if (outcome === 'STORE_UNAVAILABLE') this.storeErrors.inc();
  }

  /** Records one request a worker's execution sent. */
  remoteCall(solution: string, target: string, seconds: number, outcome: string): void {
    this.remoteCalls.inc({ solution, function: target, outcome: statusLabel(outcome) });
    this.remoteCallSeconds.observe(seconds, { solution });
  }

  /** Records one retry a worker's execution decided. */
  retried(solution: string, target: string): void {
    this.retries.inc({ solution, function: target });
  }

  /** The text a Prometheus scrape reads. */
  render(): string {
    const delay = this.loopDelay;
    const loop: Metric[] = [
      new Gauge(
        'restfn_event_loop_delay_seconds',
        "Delay of the request thread's event loop since the last scrape, by quantile (what a blocked loop adds to every request).",
        () => [
          [{ quantile: '0.5' }, delay.percentile(50) / 1e9],
          [{ quantile: '0.99' }, delay.percentile(99) / 1e9],
          [{ quantile: '1' }, delay.max / 1e9],
        ],
      ),
    ];
    const all: Metric[] = [
      this.executions,
      this.executionSeconds,
      this.remoteCalls,
      this.remoteCallSeconds,
      this.retries,
      this.storeErrors,
      ...loop,
      ...this.gauges,
    ];
    const text = all
      .map((m) => [`# HELP ${m.name} ${m.help}`, `# TYPE ${m.name} ${m.type}`, ...m.lines()].join('\n'))
      .join('\n');
    delay.reset();
    return `${text}\n`;
  }

  close(): void {
    this.loopDelay.disable();
  }
}
