import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readable } from '../../src/cli/log-lines.js';
import { colourOn, table } from '../../src/cli/output.js';
import { WAITING_AFTER_MS, waitingLine, waitingReporter } from '../../src/cli/waiting.js';
import { printable } from '../../src/errors/printable.js';
import { CLI, runCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';
import { tempSolution } from '../helpers/temp-solution.js';

describe('output conventions', () => {
  test('colour: FORCE_COLOR wins, NO_COLOR turns it off, otherwise a terminal only', () => {
    const env = { ...process.env };
    try {
      for (const [force, no, tty, on] of [
        [undefined, undefined, true, true],
        [undefined, undefined, false, false],
        [undefined, '1', true, false],
        ['1', '1', false, true],
        ['0', undefined, true, false],
      ] as const) {
        delete process.env.FORCE_COLOR;
        delete process.env.NO_COLOR;
        delete process.env.TERM;
        if (force !== undefined) process.env.FORCE_COLOR = force;
        if (no !== undefined) process.env.NO_COLOR = no;
        expect(colourOn({ isTTY: tty }), JSON.stringify({ force, no, tty })).toBe(on);
      }
    } finally {
      process.env = env;
    }
  });

  test('printable escapes the same characters whether or not the text has another to escape', () => {
    // A text with nothing to escape is returned after one scan: that scan must know every character
    // the escaping knows. A trailing line break makes the whole text take the escaping path.
    const disagree: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const text = `x${String.fromCharCode(code)}`;
      if (printable(text) !== printable(`${text}\n`).slice(0, -2)) disagree.push(`U+${code.toString(16)}`);
    }
    expect(disagree).toEqual([]);
    expect(printable('plain text, é, 😀')).toBe('plain text, é, 😀');
  });

  test('a table: a header, aligned columns, escaped cells, no column that is empty in every row', () => {
    const escaped = printable('evil\u001b[2J');
    expect(escaped).not.toContain('\u001b');
    const rows = [
      { key: 'api-key', kind: 'secret', state: '' },
      { key: 'evil\u001b[2J', kind: 'bearer', state: '' },
    ];
    expect(
      table(rows, [
        ['KEY', (r) => r.key],
        ['KIND', (r) => r.kind],
        ['STATE', (r) => r.state],
      ]),
    ).toBe(
      `KEY${' '.repeat(escaped.length - 1)}KIND\napi-key${' '.repeat(escaped.length - 5)}secret\n${escaped}  bearer\n`,
    );
  });

  test('errors and warnings are coloured when FORCE_COLOR says so, and plain under NO_COLOR', async () => {
    const root = tempSolution({
      'functions/rest-get-x.platform': 'provider: DATA_PROVIDER_REST\nmethod: get\nurl: https://x\n',
    });
    const coloured = await runCli(['run', 'rest-get-x'], {
      cwd: root,
      env: { NO_COLOR: '', FORCE_COLOR: '1' },
    });
    expect(coloured.stderr).toContain('\u001b[31merror\u001b[39m INVALID_VALUE');
    expect(coloured.stderr).toContain('restfn: \u001b[31merror\u001b[39m INVALID_DEFINITION');
    const plain = await runCli(['run', 'rest-get-x'], { cwd: root });
    expect(plain.stderr).not.toContain('\u001b[');
    expect(plain.stderr).toContain('restfn: error INVALID_DEFINITION');
  });

  test('sync --format json gives the summary as data; the table form is the line per datasource', async () => {
    const server = await testServer((_, res) => json(res, 200, [{ id: 'a' }, { id: 'b' }]));
    const root = tempSolution({
      'functions/rest-get-items.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/items\n`,
      'datasources/items.platform':
        'type: datasource.sqlite\noptions:\n  provider: DATA_PROVIDER_LOCAL\n  entities:\n    - entity: items\n      function: rest-get-items\n',
    });
    const r = await runCli(['sync', '--format', 'json'], { cwd: root });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      {
        datasource: 'items',
        entities: [{ entity: 'items', function: 'rest-get-items', pages: 1, records: 2, stopped: 'done' }],
        rows: null,
        committedPerEntity: false,
        seconds: expect.any(Number),
      },
    ]);
    const bad = await runCli(['sync', '--format', 'xml'], { cwd: root });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("argument 'xml' is invalid. Allowed choices are table, json, text.");
    expect(bad.stderr).toContain("restfn: run 'restfn sync --help' for usage");
  });

  test('import --format json: the plan as one JSON document on stdout, the status on stderr', async () => {
    const root = tempSolution({ 'solution.yaml': 'name: t\n' });
    const swagger = join(import.meta.dirname, '..', 'fixtures', 'import', 'petstore-swagger-2.0.json');
    const r = await runCli(['import', swagger, '--format', 'json', '--dry-run'], { cwd: root });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ format: 'Swagger 2.0', operations: 16, dryRun: true });
    expect(report.files).toHaveLength(16);
    expect(report.files[0]).toMatchObject({
      status: 'new',
      written: false,
      path: expect.stringMatching(/^functions\//),
    });
    expect(report.credentials).toContainEqual({
      key: 'api-key',
      command: 'restfn credentials set api-key --kind secret',
    });
    expect(r.stderr).toBe('restfn: dry run: nothing written\n');
  });

  test('restfn new refuses the options of the other kind of template instead of ignoring them', async () => {
    const root = tempSolution({ 'solution.yaml': 'name: t\n' });
    const method = await runCli(['new', 'rest-post-item', '--method', 'create'], { cwd: root });
    expect(method.code).toBe(2);
    // --method is a function template's HTTP method: an action's method is named as such.
    expect(method.stderr).toContain(
      "--method for a function template is the HTTP method: one of DELETE, GET, HEAD, PUT, PATCH, POST ('create' is what an action does: --template action)",
    );
    const fn = await runCli(['new', 'rest-post-item', '-f', 'rest-get-items'], { cwd: root });
    expect(fn.stderr).toContain('--function is for --template datasource or action');
    const url = await runCli(
      ['new', 'items', '-t', 'datasource', '-f', 'x', '--url', 'http://127.0.0.1:9/x'],
      { cwd: root },
    );
    expect(url.stderr).toContain("--url is for function templates: a datasource uses its function's address");
    expect(existsSync(join(root, 'functions'))).toBe(false);
  });

  test("serve's readable log line: a request in words, other fields as key=value, escaped", () => {
    const time = new Date(2026, 0, 2, 3, 4, 5).getTime();
    expect(
      readable(
        JSON.stringify({
          level: 30,
          time,
          msg: 'request completed',
          method: 'GET',
          url: '/x',
          statusCode: 200,
          ms: 1.234,
          reqId: 'r1',
        }),
      ),
    ).toBe('03:04:05 info  GET /x 200 1.2 ms');
    expect(readable(JSON.stringify({ level: 40, time, msg: 'slow\u001b[2J', solution: 'crm' }))).toBe(
      `03:04:05 warn  ${printable('slow\u001b[2J')} solution=crm`,
    );
    expect(readable('not json')).toBe('not json');
  });
});

describe('a slow run on a terminal says what it waits for', () => {
  test('after a second: the request, the time, the retry to come; cleared when done (stepped clock)', () => {
    let now = 0;
    let tick: () => void = () => undefined;
    let written = '';
    const reporter = waitingReporter({
      write: (text) => {
        written += text;
      },
      now: () => now,
      every: (_ms, fn) => {
        tick = fn;
        return () => {
          tick = () => undefined;
        };
      },
    });
    reporter.onEvent({
      type: 'request',
      correlationId: 'c',
      function: 'f',
      method: 'GET',
      url: 'https://api.example.com/x',
      headers: {},
    });
    now = WAITING_AFTER_MS - 1;
    tick();
    expect(written).toBe('');
    now = 1200;
    tick();
    expect(written).toBe('\rrestfn: waiting for GET https://api.example.com/x (1.2 s)\u001b[K');
    reporter.onEvent({
      type: 'retried',
      correlationId: 'c',
      function: 'f',
      attempt: 2,
      delayMs: 3000,
      reason: '503 Service Unavailable',
      cause: 'answered 503',
    });
    expect(written.endsWith('(1.2 s; retry 2 in 3.0 s: 503 Service Unavailable)\u001b[K')).toBe(true);
    reporter.done();
    expect(written.endsWith('\r\u001b[K')).toBe(true);
    const before = written;
    now = 9000;
    tick();
    expect(written).toBe(before);
    expect(waitingLine({ retry: { attempt: 3, atMs: 10, reason: 'network failure' } }, 2500, 20)).toBe(
      'restfn: waiting for the call (2.5 s; retry 3 (network failure))',
    );
  });

  test('restfn run in a real terminal (script(1)): the waiting line shows while the service holds the answer', async () => {
    let release: (() => void) | undefined;
    const server = await testServer((_, res) => {
      release = () => json(res, 200, { ok: true });
    });
    const root = tempSolution({
      'functions/rest-get-slow.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/slow\n`,
    });
    const child = spawn('script', ['-qec', `${process.execPath} ${CLI} run rest-get-slow`, '/dev/null'], {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1', TERM: 'xterm' },
    });
    let out = '';
    const seen = new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk) => {
        out += chunk;
        if (out.includes('restfn: waiting for GET') && release) resolve();
      });
    });
    await seen;
    release!();
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(out).toMatch(new RegExp(`restfn: waiting for GET ${server.url}/slow \\(\\d+\\.\\d s\\)`));
    // Cleared before the output.
    const cleared = out.indexOf('\r\u001b[K{');
    expect(cleared).toBeGreaterThan(out.indexOf('restfn: waiting for GET'));
    expect(out.slice(cleared + 4).replaceAll('\r', '')).toMatch(/^\{\n\s+"ok": true\n\}/);
  }, 60_000);
});
