import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { QUIET_INTERVAL_MS, shouldLogPage } from '../../src/cli/progress.js';
import { interruptedSummary } from '../../src/cli/sync-summary.js';
import { duration } from '../../src/cli/trace.js';
import { runCli, startCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';
import { datasource } from '../helpers/sync.js';
import { tempSolution } from '../helpers/temp-solution.js';

const PAGED = (url: string) => `provider: DATA_PROVIDER_REST
method: GET
url: ${url}/items
parameters:
  page: { location: query, type: int, value: 1 }
outputTransform: $.items
continuation:
  when: =$count(@ctx.output) > 0
  parameters:
    page: { location: query, type: int, value: =$number(@ctx.parameters.page) + 1 }
`;

describe('run and sync say what is happening', () => {
  test('run reports each retry on stderr: which attempt, after how long, and why', async () => {
    let calls = 0;
    const server = await testServer((_, res) =>
      ++calls <= 2 ? json(res, 503, {}) : json(res, 200, { ok: 1 }),
    );
    const root = tempSolution({
      'functions/rest-flaky.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/flaky
error:
  - when: =@ctx.response.status = 503
    retry: { delay: 10, maxRetries: 3 }
`,
    });
    const r = await runCli(['run', 'rest-flaky'], { cwd: root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('restfn: retry'))).toEqual([
      'restfn: retry: rest-flaky: attempt 2 in 10 ms (error handler retry; the last attempt answered 503 Service Unavailable)',
      'restfn: retry: rest-flaky: attempt 3 in 10 ms (error handler retry; the last attempt answered 503 Service Unavailable)',
    ]);
    expect(JSON.parse(r.stdout)).toEqual({ ok: 1 });
  });

  test('sync without a terminal: retries, and with --verbose a progress line per page', async () => {
    let limited = false;
    const server = await testServer((req, res) => {
      if (!limited) {
        limited = true;
        return json(res, 429, {}, { 'retry-after': '0' });
      }
      const page = Number(new URL(req.url, 'http://x').searchParams.get('page'));
      json(res, 200, { items: page <= 3 ? [{ id: `p${page}` }] : [] });
    });
    const root = tempSolution({
      'functions/rest-get-items.platform': PAGED(server.url),
      'datasources/items.platform': datasource('items', 'rest-get-items'),
    });
    const verbose = await runCli(['sync', '--verbose'], { cwd: root });
    expect(verbose.code, verbose.stderr).toBe(0);
    expect(verbose.stderr).toContain(
      'restfn: retry: rest-get-items: attempt 2 in 0 ms (429 Too Many Requests; the last attempt answered 429 Too Many Requests)',
    );
    const pages = verbose.stderr.split('\n').filter((l) => l.startsWith('restfn: sync: '));
    expect(pages.map((l) => l.replace(/, [\d.]+ s$/, ''))).toEqual([
      'restfn: sync: items <- rest-get-items: page 1, 1 record',
      'restfn: sync: items <- rest-get-items: page 2, 2 records',
      'restfn: sync: items <- rest-get-items: page 3, 3 records',
      'restfn: sync: items <- rest-get-items: page 4, 3 records',
    ]);
    expect(verbose.stderr).toContain(`> GET ${server.url}/items?page=2`);
    // Without --verbose there is still a sign of life: the first page of each entity.
    const quiet = await runCli(['sync'], { cwd: root });
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).toMatch(/^restfn: sync: items <- rest-get-items: page 1, 1 record, [\d.]+ s$/m);
    expect(quiet.stderr).not.toContain('> GET');
  });

  test('Ctrl-C during a sync: the interrupted datasource keeps its tables, finished ones are kept, it says so', async () => {
    let hold = false;
    let arrived: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const server = await testServer((req, res) => {
      const round = hold ? 'new' : 'old';
      if (req.url.startsWith('/b') && hold) {
        arrived(); // and never answer: the sync is stuck on this page until interrupted
        return;
      }
      json(res, 200, [{ id: `${req.url.slice(1, 2)}-${round}` }]);
    });
    const fn = (path: string) => `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/${path}\n`;
    const root = tempSolution({
      'functions/rest-get-a.platform': fn('a'),
      'functions/rest-get-b.platform': fn('b'),
      'functions/rest-get-c.platform': fn('c'),
      'datasources/a.platform': datasource('a', 'rest-get-a'),
      'datasources/b.platform': datasource('b', 'rest-get-b'),
      'datasources/c.platform': datasource('c', 'rest-get-c'),
    });
    expect((await runCli(['sync'], { cwd: root })).code).toBe(0);
    hold = true;
    const { child, done } = startCli(['sync', 'a', 'b', 'c'], { cwd: root });
    await held;
    child.kill('SIGINT');
    const r = await done;
    expect(r.code).toBe(130);
    expect(r.stdout).toMatch(/^a: a <- rest-get-a: 1 page, 1 record \(/);
    expect(r.stderr).toContain(
      "restfn: error INTERRUPTED: sync interrupted during 'b': its tables are as they were before this sync; kept (synced in full): 'a'; not started: 'c'",
    );
    const rows = async (table: string) =>
      JSON.parse((await runCli(['query', `SELECT id FROM [${table}]`], { cwd: root })).stdout);
    expect(await rows('a')).toEqual([{ id: 'a-new' }]);
    expect(await rows('b')).toEqual([{ id: 'b-old' }]);
    expect(await rows('c')).toEqual([{ id: 'c-old' }]);
  });

  test('Ctrl-C during a run: exit 130, no output, and it says nothing was written', async () => {
    let arrived: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const server = await testServer(() => arrived());
    const root = tempSolution({
      'functions/rest-slow.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/slow\n`,
    });
    const { child, done } = startCli(['run', 'rest-slow'], { cwd: join(root) });
    await held;
    child.kill('SIGINT');
    const r = await done;
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      "restfn: error INTERRUPTED: run interrupted: 'rest-slow' stopped before it finished",
    );
  });
});

describe('progress decisions', () => {
  test('without a terminal: every page with --verbose, else the first page and then one per interval', () => {
    expect(shouldLogPage(7, true, 1000, 999)).toBe(true);
    expect(shouldLogPage(1, false, 1000, 999)).toBe(true);
    expect(shouldLogPage(2, false, 1000, 0)).toBe(false);
    expect(shouldLogPage(2, false, QUIET_INTERVAL_MS, 0)).toBe(true);
  });

  test('what an interrupted sync says it kept', () => {
    expect(interruptedSummary([], 'a', ['a', 'b'])).toBe(
      "sync interrupted during 'a': its tables are as they were before this sync; nothing was synced; not started: 'b'",
    );
    expect(interruptedSummary(['a', 'b'], undefined, ['a', 'b', 'c', 'd'], ['c'])).toBe(
      "sync interrupted between datasources; kept (synced in full): 'a', 'b'; not started: 'd'",
    );
  });

  test('waits read as a person reads them', () => {
    expect([0, 10, 999, 1000, 1500, 60_000].map(duration)).toEqual([
      '0 ms',
      '10 ms',
      '999 ms',
      '1 s',
      '1.5 s',
      '60 s',
    ]);
  });
});
