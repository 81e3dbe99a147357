import { describe, expect, test } from 'vitest';
import { RequestBudget, requestBudget } from '../../src/http/request-budget.js';
import { recordingClock } from '../helpers/clock.js';
import { json, testServer } from '../helpers/http-server.js';
import { runtimeFor } from '../helpers/runtime.js';
import { datasourceOf } from '../helpers/sync.js';

const fn = (url: string, extra = '') =>
  `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${url}\nformat: json\n${extra}`;

/** An error handler that would retry forever, at once. */
const FLOOD = 'error:\n  - retry:\n      delay: 0\n      maxRetries: 100000\n';

/** `/a` redirects through `/a1` ... `/a5`, which answers 500: six requests per attempt. */
async function redirectingTo500() {
  return testServer((req, res) => {
    const hop = Number(/^\/a(\d*)/.exec(req.url)?.[1] || 0);
    if (hop < 5) {
      res.writeHead(302, { location: `/a${hop + 1}` });
      res.end();
    } else json(res, 500, { error: 'down' });
  });
}

describe('RequestBudget', () => {
  test('spends one request at a time and refuses the one past its cap with REQUEST_LIMIT', () => {
    const budget = new RequestBudget(2);
    const summary = { method: 'GET', url: 'https://api.example.com/x' };
    budget.spend(summary);
    expect(budget.spent).toBe(false);
    budget.spend(summary);
    expect(budget.spent).toBe(true);
    expect(() => budget.spend(summary)).toThrow(expect.objectContaining({ code: 'REQUEST_LIMIT', limit: 2 }));
  });

  test('no cap, no budget (a library runtime)', () => {
    expect(requestBudget(Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(requestBudget(5)).toBeInstanceOf(RequestBudget);
  });
});

describe('retry ceilings and the per-execution request cap in a runtime', () => {
  test("a handler's maxRetries is capped and its delay raised, at run time (expressions too)", async () => {
    const server = await testServer((_req, res) => json(res, 500, {}));
    const clock = recordingClock();
    const runtime = runtimeFor(
      {
        'functions/flood.platform': fn(`${server.url}/x`, FLOOD),
        // The same, its values computed.
        'functions/computed.platform': fn(
          `${server.url}/y`,
          "error:\n  - retry:\n      delay: '=0 * 1'\n      maxRetries: '=100000 + 0'\n",
        ),
      },
      { clock, retry: { handlerMaxRetries: 10, handlerMinDelayMs: 100 } },
    );
    await expect(runtime.execute('flood')).rejects.toMatchObject({ code: 'REMOTE_ERROR', attempts: 11 });
    expect(server.requests).toHaveLength(11);
    expect(clock.delays).toEqual(Array(10).fill(100));
    await expect(runtime.execute('computed')).rejects.toMatchObject({ code: 'REMOTE_ERROR', attempts: 11 });
    expect(server.requests.filter((r) => r.url === '/y')).toHaveLength(11);
    expect(clock.delays).toEqual(Array(20).fill(100));
  });

  test('redirects and retries stop at the cap with REQUEST_LIMIT, naming it and its flag', async () => {
    const server = await redirectingTo500();
    const clock = recordingClock();
    const runtime = runtimeFor(
      { 'functions/chain.platform': fn(`${server.url}/a`, FLOOD) },
      { clock, maxRequestsPerExecution: 30 },
    );
    const error = (await runtime.execute('chain').catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({ code: 'REQUEST_LIMIT', limit: 30 });
    expect(error.message).toContain('has sent 30 requests');
    expect(error.message).toContain('restfn serve --max-requests-per-execution');
    // Five attempts of six requests each: the cap falls where the sixth attempt would begin, so
    // that attempt is not waited for.
    expect(server.requests).toHaveLength(30);
    expect(clock.delays).toHaveLength(4);

    // A cap in the middle of a redirect chain stops the chain there.
    server.requests.length = 0;
    const tight = runtimeFor(
      { 'functions/chain.platform': fn(`${server.url}/a`, FLOOD) },
      { maxRequestsPerExecution: 8 },
    );
    await expect(tight.execute('chain')).rejects.toMatchObject({ code: 'REQUEST_LIMIT' });
    expect(server.requests.map((r) => r.url)).toEqual(['/a', '/a1', '/a2', '/a3', '/a4', '/a5', '/a', '/a1']);
  });

  test("a guard's requests count in its execution's budget, and the cap is no failed guard", async () => {
    const server = await testServer((_req, res) => json(res, 500, {}));
    const runtime = runtimeFor(
      {
        'functions/check.platform': fn(`${server.url}/guard`, FLOOD),
        'functions/main.platform': fn(`${server.url}/main`, 'guard:\n  function: check\n'),
      },
      { maxRequestsPerExecution: 4 },
    );
    // Not `skipped` (what a failed guard gives): the execution fails with the cap.
    await expect(runtime.execute('main')).rejects.toMatchObject({ code: 'REQUEST_LIMIT' });
    expect(server.requests.map((r) => r.url)).toEqual(Array(4).fill('/guard'));
  });

  test("each execution has its own budget; without the option there is no cap (the CLI's runtime)", async () => {
    const server = await testServer((_req, res) => json(res, 500, {}));
    const capped = runtimeFor(
      { 'functions/flood.platform': fn(`${server.url}/x`, FLOOD) },
      { maxRequestsPerExecution: 3 },
    );
    await expect(capped.execute('flood')).rejects.toMatchObject({ code: 'REQUEST_LIMIT' });
    await expect(capped.execute('flood')).rejects.toMatchObject({ code: 'REQUEST_LIMIT' });
    expect(server.requests).toHaveLength(6);

    server.requests.length = 0;
    const free = runtimeFor({
      'functions/many.platform': fn(
        `${server.url}/x`,
        'error:\n  - retry:\n      delay: 0\n      maxRetries: 150\n',
      ),
    });
    await expect(free.execute('many')).rejects.toMatchObject({ code: 'REMOTE_ERROR', attempts: 151 });
    expect(server.requests).toHaveLength(151);
  });
});

describe('the pages of one execution share its request budget', () => {
  test('a continuation page adds its first request; retries and redirects are shared', () => {
    const budget = new RequestBudget(2);
    const summary = { method: 'GET', url: 'https://api.example.com/x' };
    budget.spend(summary);
    budget.spend(summary);
    expect(budget.spent).toBe(true);
    // Page 2's own first request is bounded by the page cap, not by the budget.
    budget.page();
    expect(budget.spent).toBe(false);
    budget.spend(summary);
    expect(budget.spent).toBe(true);
    const error = (() => {
      try {
        budget.spend(summary);
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error).toMatchObject({ code: 'REQUEST_LIMIT', limit: 2 });
    expect(error?.message).toContain('has sent 3 requests');
    expect(error?.message).toContain('(2, and the first request of each continuation page)');
  });

  // Every page answers 500 three times, then 200 with a next page, forever: 4 requests a page. With
  // a cap of 10 the pages share: 4 + 4 + 4 + 1 = 13 = 10 + 3 continuation pages, then REQUEST_LIMIT
  // at page 4's first retry. GET streams with a page ahead (fetchAhead); POST does not.
  test.each(['GET', 'POST'])('%s: a paged function with retries stops at the shared cap', async (method) => {
    const failures = new Map<string, number>();
    const server = await testServer((req, res) => {
      const page = Number(new URL(req.url, 'http://x').searchParams.get('page'));
      const failed = failures.get(req.url) ?? 0;
      if (failed < 3) {
        failures.set(req.url, failed + 1);
        return json(res, 500, { error: 'down' });
      }
      json(res, 200, { items: [page], next: page + 1 });
    });
    const clock = recordingClock();
    const runtime = runtimeFor(
      {
        'functions/paged.platform': `provider: DATA_PROVIDER_REST\nmethod: ${method}\nurl: ${server.url}/p\nformat: json\nparameters:\n  page: { location: query, type: int, value: 1 }\ncontinuation:\n  when: =$exists(@ctx.output.next)\n  parameters:\n    page: { location: query, type: int, value: =@ctx.output.next }\n${FLOOD}`,
      },
      { clock, maxRequestsPerExecution: 10, maxPages: 50 },
    );
    const pages: number[] = [];
    const error = await runtime
      .pages('paged', {}, {}, (_result, page) => {
        pages.push(page);
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'REQUEST_LIMIT', limit: 10 });
    expect((error as Error).message).toContain('has sent 13 requests');
    expect(pages).toEqual([1, 2, 3]);
    expect(server.requests).toHaveLength(13);
    expect(server.requests.at(-1)?.url).toBe('/p?page=4');
  });
});

test('a datasource preview is one execution: its functions and their pages share one budget', async () => {
  // Every request answers 500 three times before its answer: 4 requests each. `a` is one page (4
  // of the cap of 10); `b` pages on: its page 1 takes 8, its page 2 adds one (11) and is refused
  // at its third request, so `b` keeps page 1 and says why it stopped.
  const failures = new Map<string, number>();
  const server = await testServer((req, res) => {
    const failed = failures.get(req.url) ?? 0;
    if (failed < 3) {
      failures.set(req.url, failed + 1);
      return json(res, 500, { error: 'down' });
    }
    const page = Number(new URL(req.url, 'http://x').searchParams.get('page'));
    if (req.url.startsWith('/a')) return json(res, 200, { items: [{ id: 'a1' }] });
    json(res, 200, { items: [{ id: `b${page}` }], next: page + 1 });
  });
  const paged = `records: $.items\nparameters:\n  page: { location: query, type: int, value: 1 }\ncontinuation:\n  when: =$exists(@ctx.output.next)\n  parameters:\n    page: { location: query, type: int, value: =@ctx.output.next }\n${FLOOD}`;
  const runtime = runtimeFor(
    {
      'functions/fa.platform': fn(`${server.url}/a`, `records: $.items\n${FLOOD}`),
      'functions/fb.platform': fn(`${server.url}/b`, paged),
      'datasources/ab.platform': datasourceOf({ a: 'fa', b: 'fb' }),
    },
    { maxRequestsPerExecution: 10 },
  );
  const preview = await runtime.previewDatasource('ab');
  expect(preview.entities).toEqual([
    { entity: 'a', function: 'fa', pages: 1, records: 1, stopped: 'done' },
    {
      entity: 'b',
      function: 'fb',
      pages: 1,
      records: 1,
      stopped: 'failed',
      error: { code: 'REQUEST_LIMIT', message: expect.stringContaining('has sent 11 requests') },
    },
  ]);
  expect(server.requests).toHaveLength(11);
});
