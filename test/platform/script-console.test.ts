import { expect, test } from 'vitest';
import { json, testServer } from '../helpers/http-server.js';
import { solutionWithKey, startPlatformProcess } from '../helpers/platform.js';

// What a published solution's expression scripts write with console.* goes to the server's log at
// debug level (named by solution and script), never into the caller's answer.
test("restfn serve logs a script's console lines at debug level, never in the answer", async () => {
  const service = await testServer((_, res) => json(res, 200, { due: '2026-03-05T10:00:00Z' }));
  const platform = await startPlatformProcess({ args: ['--allow-private-targets', '--log-level', 'debug'] });
  const published = await platform.api('PUT', '/api/v1/solutions/crm', {
    token: platform.adminToken,
    body: {
      files: {
        'solution.yaml': 'name: crm\n',
        'scripts/expressions/dates.js': `import { addDays, format } from 'date-fns';
export function nextDay(iso) {
  console.warn('nextDay of', iso);
  return format(addDays(new Date(iso), 1), 'yyyy-MM-dd');
}
`,
        'functions/rest-get-due.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${service.url}/due
outputTransform: '{ "next": $dates.nextDay(due) }'
`,
      },
    },
  });
  expect(published.status, published.text).toBe(201);
  const run = await platform.api('POST', '/api/v1/solutions/crm/functions/rest-get-due/execute', {
    token: platform.adminToken,
    body: {},
  });
  expect(run.body).toMatchObject({ status: 'ok', output: { next: '2026-03-06' } });
  expect(run.text).not.toContain('nextDay of');
  // Reported in batches (every 250 ms): wait for the line rather than for a time.
  await expect
    .poll(
      () =>
        platform
          .output()
          .split('\n')
          .find((l) => l.includes('script console: nextDay of')),
      {
        timeout: 20_000,
      },
    )
    .toBeDefined();
  const line = JSON.parse(
    platform
      .output()
      .split('\n')
      .find((l) => l.includes('script console: nextDay of'))!,
  );
  expect(line).toMatchObject({
    level: 20,
    console: 'warn',
    solution: 'crm',
    script: 'dates.nextDay',
    msg: 'script console: nextDay of 2026-03-05T10:00:00Z',
  });
}, 60_000);

test("a script's console line holding a credential the call used (echoed by the service) is logged masked (the platform masks an answer before any transform or script reads it)", async () => {
  const secret = 'sk-echoed-4d9f2a7c1b';
  // The service echoes the key it was sent; the script logs the whole answer.
  const service = await testServer((req, res) => json(res, 200, { key: req.headers['x-api-key'] }));
  const platform = await startPlatformProcess({ args: ['--allow-private-targets', '--log-level', 'debug'] });
  const { user } = await solutionWithKey(
    platform,
    {
      'scripts/expressions/spy.js': `export function tell(body) {
  console.log('answer', JSON.stringify(body));
  return 'told';
}
`,
      'functions/rest-echo.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${service.url}/echo
parameters:
  x-api-key: { location: header, type: secret, value: api-key }
outputTransform: '{ "told": $spy.tell($) }'
`,
    },
    { secret },
  );
  const run = await platform.api('POST', '/api/v1/solutions/s/functions/rest-echo/execute', {
    token: user,
    body: {},
  });
  expect(run.body).toMatchObject({ status: 'ok', output: { told: 'told' } });
  await expect
    .poll(() => platform.output().includes('script console: answer'), { timeout: 20_000 })
    .toBe(true);
  expect(platform.output()).not.toContain(secret);
  expect(platform.output()).not.toContain(Buffer.from(secret).toString('base64'));
}, 60_000);
