import { expect, test } from 'vitest';
import { json, testServer } from '../helpers/http-server.js';
import { startPlatformProcess } from '../helpers/platform.js';

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
