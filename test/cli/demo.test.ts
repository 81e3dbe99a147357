import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { EXAMPLES } from '../helpers/temp-solution.js';

// The README's main job. It serves the demo API on the fixed port 4010 its function files name.
test('npm start: the demo validates, syncs real pages into SQLite, runs functions and an offline action round trip against the bundled API', async () => {
  const child = spawn(process.execPath, [join(EXAMPLES, 'demo', 'run-demo.mjs')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c) => {
    out += c;
  });
  child.stderr.on('data', (c) => {
    out += c;
  });
  const code = await new Promise((resolve) => child.on('close', resolve));
  expect(code, out).toBe(0);
  expect(out).toContain('6 files checked: 0 errors, 0 warnings');
  expect(out).toContain('"updatedAt": 1767744000000');
  expect(out).toContain('"name": "Ada Lovelace"');
  expect(out).toContain('customers <- rest-get-customers: 3 pages, 60 records, query returns 60 rows');
  expect(out.match(/"customers": 20/g)).toHaveLength(3);
  // The offline round trip: queued while the API is down, sent once it is back, both sides agree.
  expect(out).toMatch(
    /'customers' record 'c-007' updated locally; queued as command [0-9a-f-]{36}, not sent yet/,
  );
  expect(out).toMatch(/restfn: [0-9a-f-]{36} update customers\/c-007: sent/);
  expect(out).toContain('local row:     {"id":"c-007","name":"Ada (edited offline)"');
  expect(out).toContain('they agree');
});
