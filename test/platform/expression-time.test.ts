import { expect, it } from 'vitest';
import { json, testServer } from '../helpers/http-server.js';
import { startPlatformProcess } from '../helpers/platform.js';

// One `restfn serve` process, two executions: `$now()` and `$millis()` are the time of each
// evaluation, not of the moment the server (or its worker) loaded JSONata (issue 37).
it('restfn serve stamps each execution with its own $now() and $millis()', async () => {
  const service = await testServer((_, res) => json(res, 200, { ok: true }));
  const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
  const published = await platform.api('PUT', '/api/v1/solutions/stamps', {
    token: platform.adminToken,
    body: {
      files: {
        'functions/rest-get-stamp.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${service.url}/x
outputTransform: '{ "at": $millis(), "now": $now(), "same": $now() = $now() }'
`,
      },
    },
  });
  expect(published.status, published.text).toBe(201);
  const execute = async () => {
    const ran = await platform.api('POST', '/api/v1/solutions/stamps/functions/rest-get-stamp/execute', {
      token: platform.adminToken,
      body: {},
    });
    expect(ran.status, ran.text).toBe(200);
    return ran.body.output as { at: number; now: string; same: boolean };
  };
  const first = await execute();
  // A real gap, however short: until this process's clock has moved past the first stamp.
  while (Date.now() <= first.at) await new Promise((resolve) => setImmediate(resolve));
  const second = await execute();
  expect(first.same && second.same).toBe(true);
  expect(second.at).toBeGreaterThan(first.at);
  expect(second.now).not.toBe(first.now);
});
