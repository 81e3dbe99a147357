import { describe, expect, it } from 'vitest';
import { json, testServer } from '../helpers/http-server.js';
import { functionFile, startPlatformProcess, solutionWithKey as withKey } from '../helpers/platform.js';

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
        'name: greedy\nsettings:\n  scripts:\n    timeoutMs: 20000\n  expressions:\n    timeoutMs: 20000\n    maxDepth: 100000000\n  http:\n    maxResponseMb: 5000\n',
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
      ['solution.yaml:9:20', 'warning'],
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

const SECRET = 'SECRET-9fQ2xL7mW4pR8tZ3';

/** The solution `s` with `api-key` holding SECRET (see `solutionWithKey`). */
const solutionWithKey = (
  platform: Awaited<ReturnType<typeof startPlatformProcess>>,
  files: Record<string, string>,
  origins?: string[],
) => withKey(platform, files, { secret: SECRET, ...(origins ? { origins } : {}) });

/** Every way the secret could show in a text: as it is, spaced, reversed, base64. */
function leaks(text: string): boolean {
  const squashed = text.replace(/[\s"',[\]]/g, '');
  return [SECRET, [...SECRET].reverse().join(''), Buffer.from(SECRET).toString('base64')].some(
    (form) => text.includes(form) || squashed.includes(form),
  );
}

describe('no one below admin reads a secret, or anything computed from it', () => {
  it('a transform that reshapes a body secret reshapes a reference: neither the trace nor the service gets the secret', async () => {
    const service = await testServer((req, res) => json(res, 200, { got: req.body }));
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const { author } = await solutionWithKey(platform, {
      'functions/rest-post.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${service.url}/x
parameters:
  key: { location: body, type: secret, value: api-key }
inputTransform: '{ "k": $join($split(key, ""), " "), "plain": key }'
`,
    });
    const answer = await platform.api('POST', '/api/v1/solutions/s/functions/rest-post/execute', {
      token: author,
      body: { trace: true },
    });
    expect(answer.body).toMatchObject({ status: 'ok' });
    expect(answer.body.trace).toHaveLength(1);
    expect(leaks(answer.text)).toBe(false);
    // The plain reference became the secret in the bytes sent; the reshaped one did not.
    const sent = JSON.parse(service.requests[0]!.body) as { k: string; plain: string };
    expect(sent.plain).toBe(SECRET);
    expect(leaks(sent.k)).toBe(false);
    expect(sent.k.replaceAll(' ', '')).toMatch(/^rfn-secret-[0-9a-f]{28}$/);
  });

  it('an answer that echoes the secret is scrubbed before the outputTransform runs: a user cannot read it reversed', async () => {
    const service = await testServer((req, res) => json(res, 200, { headers: req.headers }));
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const { user } = await solutionWithKey(platform, {
      'functions/rest-echo.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${service.url}/echo
parameters:
  x-api-key: { location: header, type: secret, value: api-key }
outputTransform: '{ "reversed": $join($reverse($split(headers."x-api-key",""))), "b64": $base64encode(headers."x-api-key") }'
`,
    });
    const answer = await platform.api('POST', '/api/v1/solutions/s/functions/rest-echo/execute', {
      token: user,
      body: {},
    });
    expect(answer.body).toMatchObject({ status: 'ok', output: { reversed: '***' } });
    expect(service.requests[0]!.headers['x-api-key']).toBe(SECRET);
    expect(leaks(answer.text)).toBe(false);
  });
});

describe('bearer credentials on the platform', () => {
  it('a bearer credential is sent as Authorization: Bearer <token>; the token is in no answer', async () => {
    const service = await testServer((req, res) =>
      json(res, 200, { auth: req.headers.authorization ?? null }),
    );
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    expect(
      (
        await publish(platform, 's', {
          'functions/rest-me.platform': functionFile(
            `${service.url}/me`,
            'parameters:\n  Authorization: { location: header, type: secret, value: token }\n',
          ),
        })
      ).status,
    ).toBe(201);
    const stored = await platform.api('PUT', '/api/v1/solutions/s/credentials/token', {
      token: platform.adminToken,
      body: { kind: 'bearer', token: `Bearer ${SECRET}` },
    });
    expect(stored.status).toBe(201);
    expect(stored.body).toMatchObject({ kind: 'bearer', origins: [service.url] });
    const ran = await execute(platform, 's', 'rest-me');
    // The service got it once prefixed; the caller sees it masked.
    expect(service.requests[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(ran.body).toMatchObject({ status: 'ok', output: { auth: '***' } });
    expect(leaks(ran.text + stored.text)).toBe(false);
  });
});

describe('credentials go only to the origins bound to them', () => {
  it('without origins given, a credential is bound to the origins of the published functions that name it', async () => {
    const service = await testServer((_req, res) => json(res, 200, {}));
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const { author, stored } = await solutionWithKey(platform, {
      'functions/rest-get.platform': functionFile(
        `${service.url}/x`,
        'parameters:\n  x-api-key: { location: header, type: secret, value: api-key }\n',
      ),
    });
    expect(stored.origins).toEqual([service.url]);
    const nobody = await platform.api('PUT', '/api/v1/solutions/s/credentials/unused', {
      token: author,
      body: { kind: 'secret', value: SECRET },
    });
    expect(nobody.status).toBe(400);
    expect(nobody.body.message).toContain("no published function of 's' names it yet");
    expect(nobody.body.message).toContain('--origin');
    const bad = await platform.api('PUT', '/api/v1/solutions/s/credentials/unused', {
      token: author,
      body: { kind: 'secret', value: SECRET, origins: ['https://api.example.com/v1'] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("'https://api.example.com/v1' is not an origin");
    // Origins have no wildcards: one that reads like one is refused.
    const wild = await platform.api('PUT', '/api/v1/solutions/s/credentials/unused', {
      token: author,
      body: { kind: 'secret', value: SECRET, origins: ['http://*'] },
    });
    expect(wild.status).toBe(400);
    expect(leaks(nobody.text + bad.text)).toBe(false);
  });

  it('only an admin adds an origin to a credential; an author may narrow its origins', async () => {
    const service = await testServer((_req, res) => json(res, 200, {}));
    const other = await testServer((_req, res) => json(res, 200, {}));
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const uses = (url: string) =>
      functionFile(
        `${url}/x`,
        'parameters:\n  x-api-key: { location: header, type: secret, value: api-key }\n',
      );
    const { author, stored } = await solutionWithKey(platform, {
      'functions/rest-get.platform': uses(service.url),
    });
    expect(stored.origins).toEqual([service.url]);
    const put = (token: string, origins?: string[]) =>
      platform.api('PUT', '/api/v1/solutions/s/credentials/api-key', {
        token,
        body: { kind: 'secret', value: SECRET, ...(origins ? { origins } : {}) },
      });
    const originsNow = async () =>
      (await platform.api('GET', '/api/v1/solutions/s/credentials', { token: author })).body.credentials[0]
        .fields.origins;

    // Given, or taken from a function published since that sends it elsewhere: refused, unchanged.
    const given = await put(author, [service.url, other.url]);
    expect(given.status).toBe(403);
    expect(given.body.code).toBe('FORBIDDEN');
    expect(given.body.message).toContain(`only an admin may add an origin to a credential; ${other.url}`);
    await publish(platform, 's', {
      'functions/rest-get.platform': uses(service.url),
      'functions/rest-other.platform': uses(other.url),
    });
    const defaulted = await put(author);
    expect(defaulted.status).toBe(403);
    expect(defaulted.body.message).toContain(other.url);
    expect(await originsNow()).toEqual([service.url]);
    expect(leaks(given.text + defaulted.text)).toBe(false);

    // An admin may; then the author narrows it back, and may not widen it again.
    expect((await put(platform.adminToken)).status).toBe(200);
    expect((await originsNow()).sort()).toEqual([service.url, other.url].sort());
    expect((await execute(platform, 's', 'rest-other')).body).toMatchObject({ status: 'ok' });
    expect((await put(author, [service.url])).status).toBe(200);
    expect(await originsNow()).toEqual([service.url]);
    expect((await execute(platform, 's', 'rest-other')).body).toMatchObject({ code: 'CREDENTIAL_ORIGIN' });
    expect((await put(author, [other.url])).status).toBe(403);
    // A new credential's first origins are its author's.
    expect(
      (
        await platform.api('PUT', '/api/v1/solutions/s/credentials/fresh', {
          token: author,
          body: { kind: 'bearer', token: SECRET, origins: [other.url] },
        })
      ).status,
    ).toBe(201);
  });

  it('a pages: true next link to another origin is refused with the credential unsent (CREDENTIAL_ORIGIN)', async () => {
    const elsewhere = await testServer((_req, res) => json(res, 200, { items: [] }));
    const service = await testServer((_req, res) =>
      json(res, 200, { items: [1], next: `${elsewhere.url}/steal` }),
    );
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const { user } = await solutionWithKey(platform, {
      'functions/rest-list.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${service.url}/items
parameters:
  x-api-key: { location: header, type: secret, value: api-key }
continuation:
  when: =$exists(@ctx.response.body.next)
  url: =@ctx.response.body.next
  parameters:
    x-api-key: { location: header, type: secret, value: api-key }
`,
    });
    const answer = await platform.api('POST', '/api/v1/solutions/s/functions/rest-list/execute', {
      token: user,
      body: { pages: true },
    });
    const lines = answer.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ page: 1 });
    expect(lines.at(-1)).toMatchObject({ status: 'error', code: 'CREDENTIAL_ORIGIN' });
    expect(lines.at(-1).message).toContain(`may not be sent to ${elsewhere.url}`);
    expect(elsewhere.requests).toHaveLength(0);
    expect(leaks(answer.text)).toBe(false);
  });

  it("a caller's value that chooses the address cannot take the credential elsewhere; publish warns of it", async () => {
    const service = await testServer((_req, res) => json(res, 200, { ok: true }));
    const elsewhere = await testServer((_req, res) => json(res, 200, { ok: true }));
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const { user, published } = await solutionWithKey(
      platform,
      {
        'functions/rest-echo.platform': `provider: DATA_PROVIDER_REST
method: GET
url: '{base}/echo'
parameters:
  base: { location: path, type: string, required: true }
  x-api-key: { location: header, type: secret, value: api-key }
`,
      },
      [service.url],
    );
    expect(published.findings.map((f: { code: string; at: string }) => `${f.code} ${f.at}`)).toContain(
      'CREDENTIAL_URL_FROM_CALLER functions/rest-echo.platform:3:6',
    );
    const run = (base: string) =>
      platform.api('POST', '/api/v1/solutions/s/functions/rest-echo/execute', {
        token: user,
        body: { parameters: { base } },
      });
    expect((await run(service.url)).body).toMatchObject({ status: 'ok' });
    const refused = await run(elsewhere.url);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ status: 'error', code: 'CREDENTIAL_ORIGIN' });
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('--allow-target SOLUTION=HOST:PORT opens that port only; a credential bound to one port does not go to another', async () => {
    const service = await testServer((_req, res) => json(res, 200, { ok: true }));
    const other = await testServer((_req, res) => json(res, 200, { ok: true }));
    const hostPort = (url: string) => new URL(url).host;
    const platform = await startPlatformProcess({
      args: ['--allow-target', `s=${hostPort(service.url)}`, '--allow-target', `t=${hostPort(other.url)}`],
    });
    await solutionWithKey(
      platform,
      {
        'functions/rest-own.platform': functionFile(
          `${service.url}/x`,
          'parameters:\n  x-api-key: { location: header, type: secret, value: api-key }\n',
        ),
        'functions/rest-other-port.platform': functionFile(`${other.url}/x`),
      },
      undefined,
    );
    expect((await execute(platform, 's', 'rest-own')).body).toMatchObject({ status: 'ok' });
    const otherPort = await execute(platform, 's', 'rest-other-port');
    expect(otherPort.body).toMatchObject({ status: 'error', code: 'TARGET_REFUSED' });
    expect(other.requests).toHaveLength(0);

    // Solution t may reach the other port; its credential, bound to the first, may not go there.
    expect(
      (
        await publish(platform, 't', {
          'functions/rest-get.platform': functionFile(
            `${other.url}/x`,
            'parameters:\n  x-api-key: { location: header, type: secret, value: k }\n',
          ),
        })
      ).status,
    ).toBe(201);
    await platform.api('PUT', '/api/v1/solutions/t/credentials/k', {
      token: platform.adminToken,
      body: { kind: 'secret', value: SECRET, origins: [service.url] },
    });
    const crossPort = await execute(platform, 't', 'rest-get');
    expect(crossPort.body).toMatchObject({ status: 'error', code: 'CREDENTIAL_ORIGIN' });
    expect(other.requests).toHaveLength(0);
  });
});

/** A solution file of 20,000 parameters (~0.9 MB): seconds of YAML to read. */
function heavyFile(): string {
  const parameters = Array.from({ length: 20_000 }, (_, i) => `  p${i}: { location: query, type: string }`);
  return `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: https://api.example.com/x\nparameters:\n${parameters.join('\n')}\n`;
}

describe('author work runs where it cannot hold up other solutions', () => {
  it("B's execution and /healthz complete while A spins a script, recurses in JSONata and publishes heavy files; A's broken sandbox leaves the server up", async () => {
    const service = await testServer((_req, res) => json(res, 200, { n: 3 }));
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    expect(
      (
        await publish(platform, 'a', {
          'functions/rest-spin.platform': functionFile(`${service.url}/x`, "outputTransform: '$s.spin(n)'\n"),
          'functions/rest-loop.platform': functionFile(
            `${service.url}/x`,
            "outputTransform: '$reduce([1..1000000], function($acc, $v) { $acc + $v })'\n",
          ),
          'functions/rest-overflow.platform': functionFile(
            `${service.url}/x`,
            "outputTransform: '$s.down(0)'\n",
          ),
          'scripts/expressions/s.js':
            'export function spin(n) { for (;;) {} return n; }\nexport function down(d) { return down(d + 1) + 1; }\n',
        })
      ).status,
    ).toBe(201);
    expect(
      (await publish(platform, 'b', { 'functions/rest-get.platform': functionFile(`${service.url}/x`) }))
        .status,
    ).toBe(201);

    /** Starts A's work, then B's and /healthz: B's must end first. */
    const whileA = async (work: () => Promise<{ status: number; body: unknown }>) => {
      const order: string[] = [];
      const a = work().then((answer) => {
        order.push('a');
        return answer;
      });
      const [b, health] = await Promise.all([
        execute(platform, 'b', 'rest-get'),
        platform.api('GET', '/healthz'),
      ]);
      order.push('b');
      expect(b.body).toMatchObject({ status: 'ok', output: { n: 3 } });
      expect(health.status).toBe(200);
      const answer = await a;
      expect(order).toEqual(['b', 'a']);
      return answer;
    };
    expect((await whileA(() => execute(platform, 'a', 'rest-spin'))).body).toMatchObject({
      code: 'SCRIPT_TIMEOUT',
    });
    expect((await whileA(() => execute(platform, 'a', 'rest-loop'))).body).toMatchObject({
      status: expect.any(String),
    });
    const heavy = await whileA(() =>
      publish(platform, 'a', {
        'functions/rest-heavy.platform': heavyFile(),
      }),
    );
    expect(heavy.status).toBe(201);

    // A's script overflows every stack: its call fails; its sandbox is replaced, and retired with
    // its version when A publishes again; the server and both solutions go on.
    await publish(platform, 'a', {
      'functions/rest-overflow.platform': functionFile(`${service.url}/x`, "outputTransform: '$s.down(0)'\n"),
      'scripts/expressions/s.js': 'export function down(d) { return down(d + 1) + 1; }\n',
    });
    for (let i = 0; i < 2; i++)
      expect((await execute(platform, 'a', 'rest-overflow')).body).toMatchObject({ code: 'SCRIPT_ERROR' });
    await publish(platform, 'a', { 'functions/rest-get.platform': functionFile(`${service.url}/x`) });
    expect((await execute(platform, 'a', 'rest-get')).body).toMatchObject({ status: 'ok' });
    expect((await execute(platform, 'b', 'rest-get')).body).toMatchObject({ status: 'ok' });
    expect((await platform.api('GET', '/healthz')).status).toBe(200);
    expect(platform.output()).not.toMatch(/uncaught|Assertion failed|"level":50/);
  });

  it('one publish of a solution at a time: another meanwhile is 429 with Retry-After, before its body is read', async () => {
    const platform = await startPlatformProcess();
    const heavy = publish(platform, 'a', {
      'functions/rest-heavy-1.platform': heavyFile(),
      'functions/rest-heavy-2.platform': heavyFile(),
    });
    // The heavy upload's validation takes seconds; a moment after it was sent, it is in progress.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const refused = await publish(platform, 'a', {
      'functions/rest-get.platform': functionFile('https://x.test/'),
    });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED' });
    expect(refused.body.message).toContain("a publish of solution 'a' is in progress");
    expect(refused.headers.get('retry-after')).toBe('1');
    // Another solution publishes meanwhile.
    expect(
      (await publish(platform, 'b', { 'functions/rest-get.platform': functionFile('https://x.test/') }))
        .status,
    ).toBe(201);
    expect((await heavy).status).toBe(201);
    expect(
      (await publish(platform, 'a', { 'functions/rest-get.platform': functionFile('https://x.test/') }))
        .status,
    ).toBe(201);
  });

  it('a worker that stands still past every limit is ended: only its solution gets EXECUTION_STALLED, and a new worker serves it next', async () => {
    const service = await testServer((_req, res) => json(res, 200, { ok: true }));
    // A validation may hold its worker as long as an execution may run: here 1 ms, which the
    // watchdog takes as its shortest, 1 s; a publish of four heavy files (seconds of YAML, in one
    // go) stands still far past it.
    const platform = await startPlatformProcess({
      args: ['--allow-private-targets', '--max-execution-ms', '1'],
    });
    const stalled = await publish(platform, 'a', {
      'functions/rest-heavy-1.platform': heavyFile(),
      'functions/rest-heavy-2.platform': heavyFile(),
      'functions/rest-heavy-3.platform': heavyFile(),
      'functions/rest-heavy-4.platform': heavyFile(),
    });
    expect(stalled.status).toBe(422);
    expect(stalled.body).toMatchObject({ status: 'error', code: 'EXECUTION_STALLED' });
    expect(stalled.body.message).toContain('publish fewer or smaller files');
    expect(
      (await publish(platform, 'a', { 'functions/rest-get.platform': functionFile(`${service.url}/x`) }))
        .status,
    ).toBe(201);
    expect((await platform.api('GET', '/healthz')).status).toBe(200);
  });
});
