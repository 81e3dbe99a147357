import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
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
  expect(out).toContain('7 files checked: 0 errors, 0 warnings');
  // Echoed as a shell reads it back (shell-quote.test.ts): pasted, it runs the same command.
  expect(out).toContain("$ restfn run rest-update-customer -p id=c-007 -p 'name=Ada Lovelace' -p region=eu");
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

/** The README's shell blocks, each with the reason it is not run, when it says one. */
function readmeBlocks(): Array<{ line: number; code: string; notRun: string | undefined }> {
  const lines = readFileSync(join(EXAMPLES, '..', 'README.md'), 'utf8').split('\n');
  const blocks: Array<{ line: number; code: string; notRun: string | undefined }> = [];
  const marker = (text: string | undefined) =>
    /^<!-- not run by the README test: (.+) -->$/.exec(text ?? '')?.[1];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```sh') continue;
    const start = i;
    const body: string[] = [];
    for (i++; lines[i] !== '```'; i++) body.push(lines[i]!);
    // The marker stands just before the block; after it for the first (the README starts with it).
    const before = lines
      .slice(0, start)
      .filter((l) => l.trim() !== '')
      .at(-1);
    const after = lines.slice(i + 1).find((l) => l.trim() !== '');
    const first = blocks.length === 0;
    blocks.push({
      line: start + 1,
      code: body.join('\n'),
      notRun: marker(before) ?? (first ? marker(after) : undefined),
    });
  }
  return blocks;
}

// Every shell block of the README as a new user would paste them, one after another into one shell,
// in a copy of the checkout's examples (the build's dist beside them): they run as written.
test('the README: every shell block runs as written, in order, in one shell; the ones that cannot run here say why', async () => {
  const blocks = readmeBlocks();
  const skipped = blocks.filter((b) => b.notRun);
  const run = blocks.filter((b) => !b.notRun);
  expect(skipped.map((b) => b.notRun)).toEqual([
    'these are its own setup and test commands',
    'it needs a PostgreSQL server and two hosts',
    'it serves until stopped (test/browser/web-app.test.ts runs it)',
    'a synopsis of the commands, not a script',
    'it needs a platform and a user',
    'it waits for a person to log in in a browser',
  ]);
  const dir = mkdtempSync(join(tmpdir(), 'restfn-readme-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(EXAMPLES, join(dir, 'examples'), { recursive: true });
  symlinkSync(join(EXAMPLES, '..', 'dist'), join(dir, 'dist'));
  const script = [
    'set -euo pipefail',
    ...run.map((b) => `echo "== README line ${b.line}" >&2\n${b.code}`),
  ].join('\n');
  // Its own process group: what the blocks start in the background (servers) ends with it.
  const child = spawn('bash', ['-c', script], {
    cwd: dir,
    env: { ...process.env, XDG_CONFIG_HOME: join(dir, 'config'), HOME: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const stopAll = () => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // Already gone.
    }
  };
  onTestFinished(stopAll);
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => {
    out += c;
  });
  child.stderr.on('data', (c) => {
    err += c;
  });
  const code = await new Promise((resolve) => child.on('exit', resolve));
  stopAll();
  await new Promise((resolve) => child.on('close', resolve));
  expect(code, `${out}\n${err}`).toBe(0);
  // Each block ran; what they print is what the README says they do.
  for (const b of run) expect(err).toContain(`== README line ${b.line}`);
  expect(out).toContain('"status":"ok","output":{"id":"c-001"');
  // The whole solution (examples/tasks): open-tasks joined to the lists it read.
  expect(out).toContain('"title": "Send the report"');
  expect(out).toContain('"list": "Work"');
  // The demo's API key, stored where each flow needs it (with --origin), reaches the service.
  expect(out).toContain('"status":"ok","output":{"eu":20,"us":20,"apac":20}');
  expect(out).toMatch(/^\{\n {2}"eu": 20,/m);
  expect(out).toMatch(/^crm-api-key +secret/m);
  expect(out).not.toMatch(/^crm-(token|basic|oauth)/m);
  // alice's console password, set with the admin's token.
  expect(out).toMatch(/^alice +author/m);
  // Nothing the README's own commands print is a warning (a credential without --origin was).
  expect(err).not.toMatch(/warning/i);
  // serve's log went to the file the README names, not between the commands' output.
  expect(out + err).not.toMatch(/"level":/);
  expect(readFileSync(join(dir, 'serve.log'), 'utf8')).toMatch(/"level":/);
  expect(readdirSync(join(dir, 'examples', 'demo', '.vscode', 'schemas')).sort()).toEqual([
    'action.json',
    'datasource.json',
    'function.json',
    'solution.json',
  ]);
}, 120_000);
