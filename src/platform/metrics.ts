import { STATUS_CODES } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Readable } from 'node:stream';

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
 * text of the labels is made once, when the series is first recorded: a scrape of 1,000 solutions
 * x 20 functions only joins strings already made.
 */
function seriesKey(labels: Labels): string {
  let key = '';
  for (const name in labels) key += `${labels[name]}\u0000`;
  return key;
}

/** Text a scrape yields in one slice at least (then the request thread serves others). */
const SLICE_CHARS = 64 * 1024;

interface Metric {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  /** Its series' lines, a series at a time (a histogram's lines together: one consistent reading). */
  series(): Iterable<string>;
}

export class Counter implements Metric {
  readonly type = 'counter';
  /** By series key: the line's start (name and labels, made once) and the value. */
  private readonly values = new Map<string, { head: string; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    const key = seriesKey(labels);
    const entry = this.values.get(key);
    if (entry) entry.value += by;
    else this.values.set(key, { head: `${this.name}${labelText(labels)} `, value: by });
  }

  *series(): Iterable<string> {
    for (const { head, value } of this.values.values()) yield `${head}${value}\n`;
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

  *series(): Iterable<string> {
    for (const [labels, value] of this.read()) yield `${this.name}${labelText(labels)} ${value}\n`;
  }
}

/** Seconds, in buckets from 5 ms to 60 s: an execution's range, from a cached answer to the ceiling. */
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export class Histogram implements Metric {
  readonly type = 'histogram';
  /** By series key: the labels' text inside the braces (made once), the counts, sum and count. */
  private readonly entries = new Map<
    string,
    { inner: string; counts: number[]; sum: number; count: number }
  >();
  /** `le="0.005"`, ..., `le="+Inf"`: the same for every series. */
  private readonly les: readonly string[];

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: readonly number[] = SECONDS,
  ) {
    this.les = [...buckets.map(String), '+Inf'].map((le) => `le="${le}"`);
  }

  observe(value: number, labels: Labels = {}): void {
    const key = seriesKey(labels);
    let s = this.entries.get(key);
    if (!s) {
      s = { inner: labelText(labels).slice(1, -1), counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.entries.set(key, s);
    }
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]!) s.counts[i]!++;
    s.sum += value;
    s.count++;
  }

  *series(): Iterable<string> {
    const { name, les } = this;
    for (const { inner, counts, sum, count } of this.entries.values()) {
      const open = inner === '' ? `${name}_bucket{` : `${name}_bucket{${inner},`;
      let text = '';
      for (let i = 0; i < counts.length; i++) text += `${open}${les[i]}} ${counts[i]}\n`;
      text += `${open}${les[counts.length]}} ${count}\n`;
      const braces = inner === '' ? '' : `{${inner}}`;
      yield `${text}${name}_sum${braces} ${sum}\n${name}_count${braces} ${count}\n`;
    }
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
  private readonly counters: Counter[] = [];

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

  /** A counter another part of the platform increments (shown after the gauges). */
  counter(name: string, help: string): Counter {
    const counter = new Counter(name, help);
    this.counters.push(counter);
    return counter;
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

  /** The text a Prometheus scrape reads, at once (tests, small platforms). */
  render(): string {
    let text = '';
    for (const slice of this.slices()) text += slice;
    return text;
  }

  /**
   * The same text in slices, the request thread free between them (`setImmediate`): a scrape of
   * 1,000 solutions x 20 functions (70,000 lines) must not hold every other request for the time
   * of its render. Read at the pace the scraper takes it (a stream's backpressure).
   */
  async *stream(): AsyncGenerator<string> {
    for (const slice of this.slices()) {
      yield slice;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** `stream()` as the byte stream an HTTP answer sends. */
  readable(): Readable {
    return Readable.from(this.stream(), { objectMode: false });
  }

  /** The text in slices of about SLICE_CHARS, a series never split. */
  private *slices(): Generator<string> {
    const delay = this.loopDelay;
    const loop = new Gauge(
      'restfn_event_loop_delay_seconds',
      "Delay of the request thread's event loop since the last scrape, by quantile (what a blocked loop adds to every request).",
      () => [
        [{ quantile: '0.5' }, delay.percentile(50) / 1e9],
        [{ quantile: '0.99' }, delay.percentile(99) / 1e9],
        [{ quantile: '1' }, delay.max / 1e9],
      ],
    );
    const all: Metric[] = [
      this.executions,
      this.executionSeconds,
      this.remoteCalls,
      this.remoteCallSeconds,
      this.retries,
      this.storeErrors,
      loop,
      ...this.gauges,
      ...this.counters,
    ];
    let text = '';
    for (const m of all) {
      text += `# HELP ${m.name} ${m.help}\n# TYPE ${m.name} ${m.type}\n`;
      for (const series of m.series()) {
        text += series;
        if (text.length >= SLICE_CHARS) {
          yield text;
          text = '';
        }
      }
      if (m === loop) delay.reset();
    }
    if (text !== '') yield text;
  }

  close(): void {
    this.loopDelay.disable();
  }
}
