import { mkdtempSync, rmSync } from 'node:fs';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_CALLS_REPORTED, reportedCalls } from '../../src/platform/executor/protocol.js';
import { PlatformMetrics } from '../../src/platform/metrics.js';
import { startPlatform } from '../../src/platform/serve.js';
import { json, testServer } from '../helpers/http-server.js';
import { startPlatformProcess } from '../helpers/platform.js';

/** One metric's value from Prometheus text: the line that starts with `name{labels}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics', () => {
  it('counts executions by solution, function and outcome, with their durations and the pool; admins only, or --metrics-port on the loopback', async () => {
    let flaky = 0;
    const service = await testServer((req, res) =>
      req.url === '/fail'
        ? json(res, 404, { error: 'gone' })
        : req.url === '/flaky' && flaky++ === 0
          ? json(res, 503, { error: 'busy' })
          : json(res, 200, { ok: true }),
    );
    const platform = await startPlatformProcess({
      args: ['--allow-private-targets', '--metrics-port', '0'],
    });
    const admin = platform.adminToken;
    const published = await platform.api('PUT', '/api/v1/solutions/crm', {
      token: admin,
      body: {
        files: {
          'functions/rest-ok.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/ok\n`,
          'functions/rest-fail.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/fail\n`,
          // One retry after a 503, 1 ms later.
          'functions/rest-flaky.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/flaky\nerror:\n  - when: =@ctx.response.status = 503\n    retry: { delay: 1, maxRetries: 1 }\n`,
        },
      },
    });
    expect(published.status, published.text).toBe(201);
    for (const fn of ['rest-ok', 'rest-ok', 'rest-fail', 'rest-flaky'])
      await platform.api('POST', `/api/v1/solutions/crm/functions/${fn}/execute`, { token: admin, body: {} });

    // A made-up function name is no series of its own.
    for (const made of ['made-up-1', 'made-up-2'])
      await platform.api('POST', `/api/v1/solutions/crm/functions/${made}/execute`, {
        token: admin,
        body: {},
      });

    // The workers report their requests in batches (every 250 ms): scraped until the last is in.
    let scraped: Response;
    let text = '';
    for (let tries = 0; tries < 100; tries++) {
      scraped = await fetch(`${platform.url}/metrics`, { headers: { authorization: `Bearer ${admin}` } });
      text = await scraped.text();
      if (sample(text, 'restfn_remote_call_duration_seconds_count{solution="crm"}') === 5) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(scraped!.status).toBe(200);
    expect(scraped!.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    expect(sample(text, 'restfn_executions_total{solution="crm",function="rest-ok",outcome="ok"}')).toBe(2);
    const failed = text.split('\n').find((l) => l.includes('function="rest-fail"'));
    expect(failed).toMatch(/outcome="REMOTE_ERROR"} 1$/);
    expect(text).not.toContain('made-up');
    expect(
      sample(
        text,
        'restfn_executions_total{solution="crm",function="(unknown)",outcome="FUNCTION_NOT_FOUND"}',
      ),
    ).toBe(2);
    expect(sample(text, 'restfn_execution_duration_seconds_count{solution="crm"}')).toBe(6);
    expect(sample(text, 'restfn_execution_duration_seconds_bucket{solution="crm",le="+Inf"}')).toBe(6);
    // Each request sent, by its status; the retry after the 503.
    const calls = (fn: string, outcome: string) =>
      sample(text, `restfn_remote_calls_total{solution="crm",function="${fn}",outcome="${outcome}"}`);
    expect(calls('rest-ok', '200')).toBe(2);
    expect(calls('rest-fail', '404')).toBe(1);
    expect(calls('rest-flaky', '503')).toBe(1);
    expect(calls('rest-flaky', '200')).toBe(1);
    expect(sample(text, 'restfn_retries_total{solution="crm",function="rest-flaky"}')).toBe(1);
    expect(sample(text, 'restfn_remote_call_duration_seconds_count{solution="crm"}')).toBe(5);
    expect(sample(text, 'restfn_remote_call_duration_seconds_bucket{solution="crm",le="+Inf"}')).toBe(5);
    expect(text).toContain('# TYPE restfn_execution_duration_seconds histogram');
    expect(sample(text, 'restfn_workers{state="busy"}')).toBe(0);
    expect(sample(text, 'restfn_workers_waiting')).toBe(0);
    expect(text).toMatch(/^restfn_event_loop_delay_seconds\{quantile="0\.99"\} [0-9.e-]+$/m);
    expect(text).toMatch(/^restfn_audit_queue_depth \d+$/m);

    // A user may not read them; without a token neither.
    await platform.api('POST', '/api/v1/users', {
      token: admin,
      body: { name: 'bob', role: 'user', solutions: ['crm'] },
    });
    const bob = (await platform.api('POST', '/api/v1/users/bob/tokens', { token: admin, body: {} })).body
      .token;
    expect(
      (await fetch(`${platform.url}/metrics`, { headers: { authorization: `Bearer ${bob}` } })).status,
    ).toBe(403);
    const refused = await fetch(`${platform.url}/metrics`);
    expect(refused.status).toBe(401);
    // An execute's answer is JSON text its worker wrote: the same headers as any answer.
    const executed = await fetch(`${platform.url}/api/v1/solutions/crm/functions/rest-ok/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(executed.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await executed.json()).toMatchObject({ status: 'ok', output: { ok: true }, version: 1 });
    // helmet's security headers on every answer, a refusal included.
    for (const answer of [scraped!, refused, executed]) {
      expect(answer.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(answer.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('strict-transport-security')).toContain('max-age=');
    }

    // --metrics-port: the same text on the loopback address, no token.
    const url = /restfn: metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(platform.output())?.[1];
    expect(url).toBeDefined();
    const loopback = await (await fetch(url!)).text();
    // The two executions above and the one whose headers were checked.
    expect(sample(loopback, 'restfn_executions_total{solution="crm",function="rest-ok",outcome="ok"}')).toBe(
      3,
    );
  });
});

describe('PlatformMetrics', () => {
  it('labels a status HTTP names as it is, any other by its class, and an error code as it is', () => {
    const metrics = new PlatformMetrics();
    try {
      for (const outcome of ['200', '404', '299', '999', '799', 'TIMEOUT'])
        metrics.remoteCall('crm', 'rest-x', 0.01, outcome);
      const text = metrics.render();
      const outcomes = [...text.matchAll(/^restfn_remote_calls_total\{[^}]*outcome="([^"]+)"\} 1$/gm)].map(
        (m) => m[1],
      );
      expect(outcomes).toEqual(['200', '404', '2xx', '9xx', '7xx', 'TIMEOUT']);
      expect(text).toMatch(/^restfn_remote_call_duration_seconds_count\{solution="crm"\} 6$/m);
    } finally {
      metrics.close();
    }
  });

  it("takes of a worker's report only the entries that are what they must be", () => {
    const long = 'x'.repeat(201);
    const { calls, retries } = reportedCalls({
      calls: [
        ['crm', 'rest-a', 0.5, '200'],
        ['crm', 'rest-a', -1, '200'],
        ['crm', 'rest-a', Number.NaN, '200'],
        ['crm', 'rest-a', Number.POSITIVE_INFINITY, '200'],
        ['crm', 'rest-a', '0.5', '200'],
        ['', 'rest-a', 0.5, '200'],
        [long, 'rest-a', 0.5, '200'],
        ['crm', { toString: () => 'x' }, 0.5, '200'],
        'crm,rest-a,0.5,200',
        null,
        ['crm', 'rest-b', 0, 'TIMEOUT'],
      ],
      retries: [['crm', 'rest-a'], ['crm'], ['crm', 7], 'crm', ['crm', 'rest-b', 'extra']],
    });
    expect(calls).toEqual([
      ['crm', 'rest-a', 0.5, '200'],
      ['crm', 'rest-b', 0, 'TIMEOUT'],
    ]);
    expect(retries).toEqual([
      ['crm', 'rest-a'],
      ['crm', 'rest-b'],
    ]);
    // Not arrays: nothing. Too many: the first MAX_CALLS_REPORTED.
    expect(reportedCalls({ calls: 'many', retries: { length: 3 } })).toEqual({ calls: [], retries: [] });
    const flood = Array.from({ length: MAX_CALLS_REPORTED + 5 }, () => ['crm', 'rest-a', 0.1, '200']);
    expect(reportedCalls({ calls: flood, retries: flood }).calls).toHaveLength(MAX_CALLS_REPORTED);
  });
});

describe('metric labels are what the published version names (issue 36, row 7)', () => {
  it("made-up names against an unpublished and a published solution leave no series of the caller's text", async () => {
    const service = await testServer((_req, res) => json(res, 200, { ok: true }));
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const admin = platform.adminToken;
    await platform.api('POST', '/api/v1/users', {
      token: admin,
      body: { name: 'mallory', role: 'user', solutions: ['draft', 'crm'] },
    });
    const member = (await platform.api('POST', '/api/v1/users/mallory/tokens', { token: admin, body: {} }))
      .body.token as string;
    const published = await platform.api('PUT', '/api/v1/solutions/crm', {
      token: admin,
      body: {
        files: {
          'functions/rest-ok.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/ok\n`,
        },
      },
    });
    expect(published.status, published.text).toBe(201);

    const outcomes = new Set<string>();
    for (let i = 0; i < 5; i++) {
      for (const solution of ['draft', 'crm']) {
        for (const path of [
          `functions/made-up-fn-${i}/execute`,
          `functions/made-up-call-${i}/call`,
          `datasources/made-up-ds-${i}/preview`,
          `actions/made-up-action-${i}/preview`,
        ]) {
          const answer = await platform.api('POST', `/api/v1/solutions/${solution}/${path}`, {
            token: member,
            body: {},
          });
          outcomes.add(`${solution} ${answer.body?.code}`);
        }
      }
    }
    // Refused for what they are, not for being unauthorised: the labels were decided for each.
    expect([...outcomes].sort()).toEqual([
      'crm ACTION_NOT_FOUND',
      'crm DATASOURCE_NOT_FOUND',
      'crm FUNCTION_NOT_FOUND',
      'draft SOLUTION_NOT_PUBLISHED',
    ]);
    // A published function keeps its name, whatever its outcome.
    await platform.api('POST', '/api/v1/solutions/crm/functions/rest-ok/execute', {
      token: member,
      body: {},
    });
    await platform.api('POST', '/api/v1/solutions/crm/functions/rest-ok/execute', {
      token: member,
      body: { parameters: { nope: 1 } },
    });

    const text = await (
      await fetch(`${platform.url}/metrics`, { headers: { authorization: `Bearer ${admin}` } })
    ).text();
    expect(text).not.toContain('made-up');
    expect(text).not.toContain('solution="draft"');
    expect(
      sample(
        text,
        'restfn_executions_total{solution="(unknown)",function="(unknown)",outcome="SOLUTION_NOT_PUBLISHED"}',
      ),
    ).toBe(20);
    expect(
      sample(
        text,
        'restfn_executions_total{solution="crm",function="(unknown)",outcome="FUNCTION_NOT_FOUND"}',
      ),
    ).toBe(10);
    expect(sample(text, 'restfn_executions_total{solution="crm",function="rest-ok",outcome="ok"}')).toBe(1);
    expect(
      sample(text, 'restfn_executions_total{solution="crm",function="rest-ok",outcome="PARAMETER_UNKNOWN"}'),
    ).toBe(1);
  });
});

/**
 * Prometheus's text format, read strictly: every sample of a family declared by `# TYPE` (a
 * histogram's `_bucket`, `_sum`, `_count`), label values quoted and escaped, a number, no series
 * twice, and each histogram's buckets growing up to `+Inf`, which equals its `_count`.
 */
function parsePrometheus(text: string): Map<string, number> {
  // Problems collected, then asserted once: 70,000 lines.
  const problems: string[] = [];
  if (!text.endsWith('\n')) problems.push('no line feed at the end');
  const types = new Map<string, string>();
  const samples = new Map<string, number>();
  /** A histogram series' bucket values in order, by `name{labels without le}`. */
  const buckets = new Map<string, number[]>();
  const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_]\w*="(?:[^"\\\n]|\\[\\"n])*",?)*)\})? (\S+)$/;
  for (const line of text.slice(0, -1).split('\n')) {
    const declared = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/.exec(line);
    if (declared) {
      if (declared[1] === 'TYPE') {
        if (types.has(declared[2]!)) problems.push(`${declared[2]} declared twice`);
        types.set(declared[2]!, declared[3]!);
      }
      continue;
    }
    const sampled = sample.exec(line);
    if (!sampled) {
      problems.push(`not a sample: ${line}`);
      continue;
    }
    const [, name, labels, value] = sampled as unknown as [string, string, string | undefined, string];
    const family = types.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
    if (!types.has(family)) problems.push(`${name} has no # TYPE`);
    else if (family !== name && types.get(family) !== 'histogram') problems.push(`${name}: not a histogram`);
    if (Number.isNaN(Number(value))) problems.push(`not a number: ${line}`);
    const series = labels === undefined ? name : `${name}{${labels}}`;
    if (samples.has(series)) problems.push(`${series} twice`);
    samples.set(series, Number(value));
    if (name.endsWith('_bucket')) {
      const key = `${name.slice(0, -7)}{${(labels ?? '').replace(/,?le="[^"]*"$/, '')}}`;
      buckets.set(key, [...(buckets.get(key) ?? []), Number(value)]);
    }
  }
  for (const [key, values] of buckets) {
    if (values.some((v, i) => i > 0 && v < values[i - 1]!)) problems.push(`${key}: buckets not growing`);
    const inf = values.at(-1);
    const count = samples.get(key.replace(/\{(.*)\}$/, (_, l: string) => (l ? `_count{${l}}` : '_count')));
    if (inf !== count) problems.push(`${key}: +Inf ${inf}, _count ${count}`);
  }
  expect(problems.slice(0, 10)).toEqual([]);
  return samples;
}

describe('GET /metrics of 1,000 solutions x 20 functions (issue 41)', () => {
  it('is correct Prometheus text, rendered in slices: /healthz answers while the scrape is under way', async () => {
    const root = mkdtempSync(join(tmpdir(), 'restfn-metrics-'));
    const token = `rfn_test_${'x'.repeat(40)}`;
    const platform = await startPlatform({
      port: 0,
      dataDir: join(root, 'data'),
      masterKeyFile: join(root, 'master.key'),
      env: { RESTFN_ADMIN_TOKEN: token },
      logStream: new Writable({ write: (_chunk, _encoding, done) => done() }),
    });
    try {
      for (let s = 0; s < 1000; s++) {
        for (let f = 0; f < 20; f++) {
          platform.metrics.executed(
            `solution-${s}`,
            `rest-fn-${f}`,
            f === 0 ? 'REMOTE_ERROR' : 'ok',
            f / 100,
          );
          platform.metrics.remoteCall(`solution-${s}`, `rest-fn-${f}`, f / 1000, '200');
        }
      }
      // Read last of all: how far the render has gone.
      let reads = 0;
      platform.metrics.gauge('restfn_test_reads', 'How often this gauge was read.', () => [[{}, ++reads]]);

      // A scraper that reads the first piece of the answer, then nothing more for now.
      const url = new URL(`${platform.url}/metrics`);
      const answer = await new Promise<IncomingMessage>((resolve, reject) =>
        httpGet(url, { headers: { authorization: `Bearer ${token}` } }, resolve).once('error', reject),
      );
      expect(answer.statusCode).toBe(200);
      const chunks: Buffer[] = [await new Promise<Buffer>((resolve) => answer.once('data', resolve))];
      answer.pause();
      // The platform answers others meanwhile, and the render waits for the scraper: the gauges,
      // rendered last, have not been read yet (a render at once would have read them before
      // the first byte went out).
      const health = await fetch(`${platform.url}/healthz`);
      expect(await health.json()).toEqual({ status: 'ok' });
      expect(reads).toBe(0);

      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.resume();
      await new Promise((resolve) => answer.once('end', resolve));
      const text = Buffer.concat(chunks).toString('utf8');
      expect(reads).toBe(1);
      const samples = parsePrometheus(text);
      const executions = [...samples.keys()].filter((s) => s.startsWith('restfn_executions_total{'));
      expect(executions).toHaveLength(20_000);
      expect(
        samples.get(
          'restfn_executions_total{solution="solution-999",function="rest-fn-0",outcome="REMOTE_ERROR"}',
        ),
      ).toBe(1);
      expect(
        samples.get('restfn_remote_calls_total{solution="solution-0",function="rest-fn-19",outcome="200"}'),
      ).toBe(1);
      expect(samples.get('restfn_execution_duration_seconds_count{solution="solution-5"}')).toBe(20);
      // 0.00, 0.01, 0.02 and 0.03 s of the 20 executions are within 25 ms, 0.00 to 0.05 within 50 ms.
      expect(samples.get('restfn_execution_duration_seconds_bucket{solution="solution-5",le="0.025"}')).toBe(
        3,
      );
      expect(samples.get('restfn_execution_duration_seconds_bucket{solution="solution-5",le="0.05"}')).toBe(
        6,
      );
      expect(samples.get('restfn_test_reads')).toBe(1);
      // The same text as the render at once (the gauge read a second time).
      expect(platform.metrics.render().replace(/^restfn_event_loop_delay_seconds.*\n/gm, '')).toBe(
        text
          .replace(/^restfn_event_loop_delay_seconds.*\n/gm, '')
          .replace('restfn_test_reads 1', 'restfn_test_reads 2'),
      );
    } finally {
      await platform.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
