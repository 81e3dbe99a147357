import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DEFAULT_CEILINGS } from '../../src/platform/ceilings.js';
import { Executor } from '../../src/platform/executor/pool.js';
import { materialise, preparedPath } from '../../src/platform/publish.js';
import { json, testServer } from '../helpers/http-server.js';
import { startPlatformProcess } from '../helpers/platform.js';

// The workers' solution caches (issue 41): a version's prepared form written once and used by the
// next runtime made of it, runtimes kept within a size, the counts the metrics show, and workers
// idle past their time ended. Real worker threads (the built dist/), a real HTTP service.

function functionFile(url: string): string {
  return `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${url}\noutputTransform: '{ "n": $count(items) }'\n`;
}

async function setup(options: {
  cacheBytes: number;
  maxWorkers?: number;
  now?: () => number;
  idleMs?: number;
}) {
  const service = await testServer((_req, res) => json(res, 200, { items: [1, 2, 3] }));
  const dataDir = mkdtempSync(join(tmpdir(), 'restfn-cache-'));
  onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
  const executor = new Executor({
    dataDir,
    ceilings: DEFAULT_CEILINGS,
    allowPrivateTargets: true,
    allowTargets: {},
    maxWorkers: options.maxWorkers ?? 1,
    cacheBytes: options.cacheBytes,
    records: () => ({
      get: () => undefined,
      getTokens: () => undefined,
      setTokens: () => undefined,
      clearTokens: () => false,
    }),
    ...(options.now ? { now: options.now } : {}),
    ...(options.idleMs !== undefined ? { idleMs: options.idleMs } : {}),
  });
  onTestFinished(() => executor.close());
  const publish = (name: string, version = 1) => ({
    number: version,
    root: materialise(dataDir, name, version, {
      'functions/rest-count.platform': functionFile(`${service.url}/items`),
    }),
  });
  const execute = (name: string, version: { number: number; root: string }) =>
    executor.run(name, version, {
      kind: 'execute',
      name: 'rest-count',
      parameters: {},
      context: {},
      correlationId: `c-${name}`,
      trace: false,
    }) as Promise<{ status: string; json: string }>;
  /** The counts once the workers have reported `misses + hits` executions (every 250 ms). */
  const counted = async (executions: number) => {
    for (;;) {
      const stats = executor.cacheStats();
      if (stats.hits + stats.misses >= executions) return stats;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { dataDir, executor, publish, execute, counted };
}

describe('the solution cache', () => {
  it('a version is prepared once, beside its files; its runtime is kept and used again (a hit)', async () => {
    const { dataDir, publish, execute, counted } = await setup({ cacheBytes: 64 * 1024 * 1024 });
    const crm = publish('crm');
    const first = await execute('crm', crm);
    expect(JSON.parse(first.json)).toMatchObject({ status: 'ok', output: { n: 3 }, version: 1 });
    const prepared = preparedPath(dataDir, 'crm', 1);
    expect(existsSync(prepared)).toBe(true);
    expect(JSON.parse(readFileSync(prepared, 'utf8')).files).toHaveLength(1);
    await execute('crm', crm);
    await execute('crm', crm);
    const stats = await counted(3);
    expect(stats).toMatchObject({ hits: 2, misses: 1, evictions: 0 });
    expect(stats.bytes).toBeGreaterThan(0);
  });

  it('past its size the least recently used runtime is closed; made again, it still answers', async () => {
    // One worker whose share holds one small runtime at most.
    const { publish, execute, counted } = await setup({ cacheBytes: 1 });
    const a = publish('a');
    const b = publish('b');
    await execute('a', a);
    await execute('b', b);
    const again = await execute('a', a);
    expect(JSON.parse(again.json)).toMatchObject({ status: 'ok', output: { n: 3 } });
    const stats = await counted(3);
    expect(stats).toMatchObject({ hits: 0, misses: 3 });
    expect(stats.evictions).toBe(2);
  });

  it('a new version is made anew (a miss), not served from the old one', async () => {
    const { publish, execute, counted } = await setup({ cacheBytes: 64 * 1024 * 1024 });
    await execute('crm', publish('crm', 1));
    const answer = await execute('crm', publish('crm', 2));
    expect(JSON.parse(answer.json)).toMatchObject({ version: 2 });
    expect(await counted(2)).toMatchObject({ hits: 0, misses: 2 });
  });

  it('a worker idle past its time is ended (its memory comes back); one always stays', async () => {
    let now = 1_000_000;
    const { executor, publish, execute } = await setup({
      cacheBytes: 64 * 1024 * 1024,
      maxWorkers: 3,
      now: () => now,
      idleMs: 60_000,
    });
    await execute('crm', publish('crm'));
    // The first worker and a spare (started while the first was busy).
    const started = executor.stats();
    expect(started.idle + started.busy).toBeGreaterThanOrEqual(2);
    now += 30_000;
    executor.check();
    expect(executor.stats().idle + executor.stats().busy).toBe(started.idle + started.busy);
    now += 31_000;
    executor.check();
    await new Promise((resolve) => setImmediate(resolve));
    expect(executor.stats()).toMatchObject({ busy: 0, idle: 1 });
    const answer = await execute('crm', publish('crm'));
    expect(JSON.parse(answer.json)).toMatchObject({ status: 'ok' });
  });

  it('restfn serve prepares a version once it is published, before its first execution; the metrics count the cache', async () => {
    const service = await testServer((_req, res) => json(res, 200, { items: [1, 2] }));
    const platform = await startPlatformProcess({
      args: ['--allow-private-targets', '--solution-cache-mb', '8'],
    });
    const published = await platform.api('PUT', '/api/v1/solutions/crm', {
      token: platform.adminToken,
      body: { files: { 'functions/rest-count.platform': functionFile(`${service.url}/items`) } },
    });
    expect(published.status).toBe(201);
    const prepared = preparedPath(platform.dataDir, 'crm', 1);
    // Written in the background after the answer: no execution asked for it.
    while (!existsSync(prepared)) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(service.requests).toHaveLength(0);
    for (let i = 0; i < 3; i++) {
      const answer = await platform.api('POST', '/api/v1/solutions/crm/functions/rest-count/execute', {
        token: platform.adminToken,
        body: {},
      });
      expect(answer.body).toMatchObject({ status: 'ok', output: { n: 2 } });
    }
    const series = async (name: string) => {
      const text = (await platform.api('GET', '/metrics', { token: platform.adminToken })).text;
      return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
    };
    expect(await series('restfn_solution_cache_limit_bytes')).toBe(8 * 1024 * 1024);
    // The workers report every 250 ms: the three executions (and the describe) are all hits.
    while ((await series('restfn_solution_cache_hits_total')) < 3)
      await new Promise((r) => setTimeout(r, 100));
    expect(await series('restfn_solution_cache_misses_total')).toBe(1);
  });
});
