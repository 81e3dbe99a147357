import { describe, expect, it } from 'vitest';
import { json, testServer } from '../helpers/http-server.js';
import { functionFile, startPlatformProcess } from '../helpers/platform.js';

type Platform = Awaited<ReturnType<typeof startPlatformProcess>>;

function publish(platform: Platform, solution: string, files: Record<string, string>) {
  return platform.api('PUT', `/api/v1/solutions/${solution}`, {
    token: platform.adminToken,
    body: { files: { 'solution.yaml': `name: ${solution}\n`, ...files } },
  });
}

function execute(platform: Platform, solution: string, fn: string) {
  return platform.api('POST', `/api/v1/solutions/${solution}/functions/${fn}/execute`, {
    token: platform.adminToken,
    body: { parameters: {} },
  });
}

/** Row 6 of issue 36: one execute call sent 35,057 requests with this handler. */
const FLOOD = 'error:\n  - retry:\n      delay: 0\n      maxRetries: 100000\n';

describe('retries have ceilings (issue 36, item 6)', () => {
  it("a handler's retries are capped at default flags (1 + 10 requests), and publish warns at the handler's line", async () => {
    const service = await testServer((_req, res) => json(res, 500, { error: 'down' }));
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const published = await publish(platform, 'flood', {
      'functions/rest-flood.platform': functionFile(`${service.url}/x`, FLOOD),
    });
    expect(published.status).toBe(201);
    const capped = published.body.findings.filter((f: { code: string }) => f.code === 'SETTING_CAPPED');
    expect(
      capped.map((f: { at: string; severity: string; message: string }) => [f.at, f.severity, f.message]),
    ).toEqual([
      [
        'functions/rest-flood.platform:6:14',
        'warning',
        "error[0].retry.delay is 0 ms, below this platform's floor of 100 ms: 100 applies (the operator sets it with restfn serve --min-retry-delay-ms)",
      ],
      [
        'functions/rest-flood.platform:7:19',
        'warning',
        "error[0].retry.maxRetries is 100000, above this platform's ceiling of 10: 10 applies (the operator sets it with restfn serve --max-retries)",
      ],
    ]);

    const answer = await execute(platform, 'flood', 'rest-flood');
    expect(answer.body).toMatchObject({ status: 'error', code: 'REMOTE_ERROR' });
    expect(service.requests).toHaveLength(11);
  });

  it('the flags move the ceilings: --max-retries 2 --min-retry-delay-ms 0', async () => {
    const service = await testServer((_req, res) => json(res, 500, { error: 'down' }));
    const platform = await startPlatformProcess({
      args: ['--allow-private-targets', '--max-retries', '2', '--min-retry-delay-ms', '0'],
    });
    const published = await publish(platform, 'flood', {
      'functions/rest-flood.platform': functionFile(`${service.url}/x`, FLOOD),
    });
    const capped = published.body.findings.filter((f: { code: string }) => f.code === 'SETTING_CAPPED');
    expect(capped.map((f: { message: string }) => f.message)).toEqual([
      expect.stringContaining("error[0].retry.maxRetries is 100000, above this platform's ceiling of 2"),
    ]);
    expect((await execute(platform, 'flood', 'rest-flood')).body).toMatchObject({ code: 'REMOTE_ERROR' });
    expect(service.requests).toHaveLength(3);
  });

  it('a redirect chain plus retries stops at the per-execution cap with REQUEST_LIMIT', async () => {
    // `/a` redirects through `/a1` ... `/a10`, which answers 500: eleven requests per attempt.
    const service = await testServer((req, res) => {
      const hop = Number(/^\/a(\d*)/.exec(req.url)?.[1] || 0);
      if (hop < 10) {
        res.writeHead(302, { location: `/a${hop + 1}` });
        res.end();
      } else json(res, 500, { error: 'down' });
    });
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const published = await publish(platform, 'chain', {
      'solution.yaml': 'name: chain\nsettings:\n  http:\n    maxRedirections: 10\n',
      // Within the ceilings: 11 attempts of 11 requests would be 121.
      'functions/rest-chain.platform': functionFile(
        `${service.url}/a`,
        'error:\n  - retry:\n      delay: 100\n      maxRetries: 10\n',
      ),
    });
    expect(published.status).toBe(201);
    expect(published.body.findings.filter((f: { code: string }) => f.code === 'SETTING_CAPPED')).toEqual([]);
    const answer = await execute(platform, 'chain', 'rest-chain');
    expect(answer.status).toBe(502);
    expect(answer.body).toMatchObject({ status: 'error', code: 'REQUEST_LIMIT' });
    expect(answer.body.message).toContain('has sent 100 requests');
    expect(answer.body.message).toContain('restfn serve --max-requests-per-execution');
    expect(service.requests).toHaveLength(100);

    // The flag moves the cap.
    const tight = await startPlatformProcess({
      args: ['--allow-private-targets', '--max-requests-per-execution', '15'],
    });
    await publish(tight, 'chain', {
      'solution.yaml': 'name: chain\nsettings:\n  http:\n    maxRedirections: 10\n',
      'functions/rest-chain.platform': functionFile(
        `${service.url}/a`,
        'error:\n  - retry:\n      delay: 100\n      maxRetries: 10\n',
      ),
    });
    service.requests.length = 0;
    expect((await execute(tight, 'chain', 'rest-chain')).body).toMatchObject({ code: 'REQUEST_LIMIT' });
    expect(service.requests).toHaveLength(15);
  });

  it('"pages": true shares one request budget over its pages: the stream ends with REQUEST_LIMIT', async () => {
    // Every page answers 500 eight times, then 200 with a next page, forever: 9 requests a page.
    // With a cap of 20: 9 + 9 + 4 = 20 + 2 continuation pages, then REQUEST_LIMIT on page 3.
    const failures = new Map<string, number>();
    const service = await testServer((req, res) => {
      const page = Number(new URL(req.url, 'http://x').searchParams.get('page'));
      const failed = failures.get(req.url) ?? 0;
      if (failed < 8) {
        failures.set(req.url, failed + 1);
        return json(res, 500, { error: 'down' });
      }
      json(res, 200, { items: [page], next: page + 1 });
    });
    const platform = await startPlatformProcess({
      args: ['--allow-private-targets', '--min-retry-delay-ms', '0', '--max-requests-per-execution', '20'],
    });
    const published = await publish(platform, 'r', {
      // Without one budget it would run to the page cap: 50 pages, 450 requests.
      'solution.yaml': 'name: r\nsettings:\n  sync:\n    maxPages: 50\n',
      'functions/rest-pgr.platform': functionFile(
        `${service.url}/p`,
        `parameters:\n  page: { location: query, type: int, value: 1 }\ncontinuation:\n  when: =$exists(@ctx.output.next)\n  parameters:\n    page: { location: query, type: int, value: =@ctx.output.next }\n${FLOOD.replace('maxRetries: 100000', 'maxRetries: 10')}`,
      ),
    });
    expect(published.status).toBe(201);
    const answer = await platform.api('POST', '/api/v1/solutions/r/functions/rest-pgr/execute', {
      token: platform.adminToken,
      body: { pages: true },
    });
    const lines = answer.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.slice(0, -1)).toEqual([
      { page: 1, output: { items: [1], next: 2 } },
      { page: 2, output: { items: [2], next: 3 } },
    ]);
    expect(lines.at(-1)).toMatchObject({ status: 'error', code: 'REQUEST_LIMIT' });
    expect(lines.at(-1).message).toContain('has sent 22 requests');
    expect(service.requests).toHaveLength(22);
  });

  it('"pages": true runs within --max-execution-ms, and publish says settings.sync.timeoutMs is capped', async () => {
    // Pages that never end, each a while coming: only the deadline stops them (before the page cap).
    const service = await testServer(async (req, res) => {
      const page = Number(new URL(req.url, 'http://x').searchParams.get('page'));
      await new Promise((resolve) => setTimeout(resolve, 500));
      json(res, 200, { items: [page], next: page + 1 });
    });
    const platform = await startPlatformProcess({
      args: ['--allow-private-targets', '--max-execution-ms', '3000'],
    });
    const published = await publish(platform, 'slow', {
      'solution.yaml': 'name: slow\nsettings:\n  sync:\n    timeoutMs: 7200000\n    maxPages: 30\n',
      'functions/rest-slow.platform': functionFile(
        `${service.url}/p`,
        'parameters:\n  page: { location: query, type: int, value: 1 }\ncontinuation:\n  when: =$exists(@ctx.output.next)\n  parameters:\n    page: { location: query, type: int, value: =@ctx.output.next }\n',
      ),
    });
    expect(published.status).toBe(201);
    const capped = published.body.findings.filter((f: { code: string }) => f.code === 'SETTING_CAPPED');
    expect(capped.map((f: { at: string; message: string }) => [f.at, f.message])).toEqual([
      [
        'solution.yaml:4:16',
        "sync.timeoutMs is 7200000, above this platform's ceiling of 3000: 3000 applies (the operator sets it with restfn serve --max-execution-ms)",
      ],
    ]);
    const answer = await platform.api('POST', '/api/v1/solutions/slow/functions/rest-slow/execute', {
      token: platform.adminToken,
      body: { pages: true },
    });
    const lines = answer.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ page: 1 });
    expect(lines.at(-1)).toMatchObject({ status: 'error', code: 'TIMEOUT' });
    expect(lines.at(-1).message).toContain("function 'rest-slow' did not finish in time (limit 3000 ms");
  }, 60_000);

  it('refuses a flag that is not a whole number', async () => {
    await expect(startPlatformProcess({ args: ['--max-retries', '-1'] })).rejects.toThrow(
      /--max-retries must be a whole number, 0 or more/,
    );
  });
});
