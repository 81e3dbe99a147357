import { describe, expect, it } from 'vitest';
import { json, testServer } from '../helpers/http-server.js';
import { functionFile, startPlatformProcess } from '../helpers/platform.js';

/** Publishes `files` as `solution` with the admin's token; the answer. */
async function publish(
  platform: Awaited<ReturnType<typeof startPlatformProcess>>,
  solution: string,
  files: Record<string, string>,
) {
  return platform.api('PUT', `/api/v1/solutions/${solution}`, {
    token: platform.adminToken,
    body: { files: { 'solution.yaml': `name: ${solution}\n`, ...files } },
  });
}

function execute(
  platform: Awaited<ReturnType<typeof startPlatformProcess>>,
  solution: string,
  fn: string,
  parameters: Record<string, unknown> = {},
) {
  return platform.api('POST', `/api/v1/solutions/${solution}/functions/${fn}/execute`, {
    token: platform.adminToken,
    body: { parameters },
  });
}

describe("the operator's ceilings over what solutions set", () => {
  it('a limit above its ceiling is capped, and publish says where (file:line:col) and which flag raises it', async () => {
    const service = await testServer((_req, res) => json(res, 200, { n: 3 }));
    const platform = await startPlatformProcess({
      args: ['--allow-private-targets', '--max-script-ms', '300', '--max-expression-ms', '400'],
    });
    const published = await publish(platform, 'greedy', {
      'solution.yaml':
        'name: greedy\nsettings:\n  scripts:\n    timeoutMs: 20000\n  expressions:\n    timeoutMs: 20000\n    maxDepth: 100000000\n',
      'functions/rest-spin.platform': functionFile(`${service.url}/x`, "outputTransform: '$s.spin(n)'\n"),
      'functions/rest-deep.platform': functionFile(
        `${service.url}/x`,
        "outputTransform: '($f := function($i) { $i = 0 ? 0 : 1 + $f($i - 1) }; $f(100000))'\n",
      ),
      'scripts/expressions/s.js': 'export function spin(n) { for (;;) {} return n; }\n',
    });
    expect(published.status).toBe(201);
    const capped = published.body.findings.filter((f: { code: string }) => f.code === 'SETTING_CAPPED');
    expect(capped.map((f: { at: string; severity: string }) => [f.at, f.severity])).toEqual([
      ['solution.yaml:4:16', 'warning'],
      ['solution.yaml:6:16', 'warning'],
      ['solution.yaml:7:15', 'warning'],
    ]);
    expect(capped[0].message).toBe(
      "scripts.timeoutMs is 20000, above this platform's ceiling of 300: 300 applies (the operator sets it with restfn serve --max-script-ms)",
    );
    expect(capped[2].message).toContain('expressions.maxDepth is 100000000');

    const spun = await execute(platform, 'greedy', 'rest-spin');
    expect(spun.body).toMatchObject({ status: 'error', code: 'SCRIPT_TIMEOUT' });
    expect(spun.body.message).toContain('ran longer than 300 ms');
    // The recursion stops at the capped depth, long before the 100,000 calls asked for.
    const deep = await execute(platform, 'greedy', 'rest-deep');
    expect(deep.body).toMatchObject({ status: 'error', code: 'EXPRESSION_EVALUATION' });
    expect(deep.body.message).toContain('D1011');
  });

  it('past its concurrency quota a solution gets 429 with Retry-After; other solutions do not', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((done) => {
      release = done;
    });
    let arrived: () => void = () => undefined;
    const first = new Promise<void>((done) => {
      arrived = done;
    });
    const service = await testServer(async (req, res) => {
      if (req.url === '/slow') {
        arrived();
        await held;
      }
      json(res, 200, { ok: true });
    });
    const platform = await startPlatformProcess({
      args: ['--allow-private-targets', '--max-concurrent-per-solution', '1'],
    });
    for (const s of ['busy', 'calm']) {
      expect(
        (
          await publish(platform, s, {
            'functions/rest-slow.platform': functionFile(`${service.url}/slow`),
            'functions/rest-fast.platform': functionFile(`${service.url}/fast`),
          })
        ).status,
      ).toBe(201);
    }
    const slow = execute(platform, 'busy', 'rest-slow');
    await first;
    const refused = await execute(platform, 'busy', 'rest-fast');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ status: 'error', code: 'RATE_LIMITED' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await execute(platform, 'calm', 'rest-fast')).body).toMatchObject({ status: 'ok' });
    release();
    expect((await slow).body).toMatchObject({ status: 'ok' });
    // The slot came back.
    expect((await execute(platform, 'busy', 'rest-fast')).body).toMatchObject({ status: 'ok' });
  });
});
