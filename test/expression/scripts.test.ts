import { describe, expect, test } from 'vitest';
import { ScriptSandbox } from '../../src/expression/scripts/sandbox.js';
import { json, testServer } from '../helpers/http-server.js';
import { runtimeFor } from '../helpers/runtime.js';

/** A solution with one function whose output calls `$<module>.<fn>()`, and the given script modules. */
function solution(url: string, output: string, scripts: Record<string, string>, settings = '') {
  return {
    'solution.yaml': `name: s\n${settings}`,
    'functions/fn.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${url}/x
outputTransform: '${output}'
`,
    ...Object.fromEntries(
      Object.entries(scripts).map(([name, text]) => [`scripts/expressions/${name}.js`, text]),
    ),
  };
}

const UTILS = `export function coalesce(...values) { return values.find((v) => v !== null && v !== undefined); }
export function initials(name) { return String(name).split(/\\s+/).map((p) => p[0]).join(''); }
export function describe(user) { return { tag: user.first + '/' + user.tags.length, nested: [1, { a: null }] }; }
`;

describe('expression scripts', () => {
  test('expressions call module functions with their arguments from the input; results come back as JSON', async () => {
    const server = await testServer((_, res) =>
      json(res, 200, { nick: null, name: 'Ada Lovelace', user: { first: 'Ada', tags: ['x', 'y'] } }),
    );
    const runtime = runtimeFor(
      solution(
        server.url,
        '{ "shown": $utils.coalesce(nick, name, "?"), "initials": $utils.initials(name), "d": $utils.describe(user) }',
        { utils: UTILS },
      ),
    );
    expect(await runtime.execute('fn')).toMatchObject({
      output: { shown: 'Ada Lovelace', initials: 'AL', d: { tag: 'Ada/2', nested: [1, { a: null }] } },
    });
  });

  // Every escape attempt ends in a stable code, never in a value from outside the sandbox.
  test.each([
    [
      'process',
      'export function f() { return process.env.HOME; }',
      'SCRIPT_ERROR',
      /'?process'? is not defined/,
    ],
    [
      'require',
      "export function f() { return require('fs').readFileSync('/etc/passwd', 'utf8'); }",
      'SCRIPT_ERROR',
      /'?require'? is not defined/,
    ],
    ['import()', "export function f() { return import('fs'); }", 'SCRIPT_RESULT', /returned a promise/],
    [
      'the Function constructor',
      "export function f() { return globalThis.constructor.constructor('return process')().env; }",
      'SCRIPT_ERROR',
      /'?process'? is not defined/,
    ],
    ['an endless loop', 'export function f() { for (;;) {} }', 'SCRIPT_TIMEOUT', /longer than 200 ms/],
    [
      'a 1 GB allocation',
      'export function f() { return new ArrayBuffer(1 << 30).byteLength; }',
      'SCRIPT_MEMORY',
      /more than the scripts' 16 MB/,
    ],
    [
      'prototype pollution',
      "export function f() { Object.prototype.polluted = 'yes'; return ({}).polluted; }",
      'SCRIPT_ERROR',
      /TypeError/,
    ],
    ['a function result', 'export function f() { return () => 1; }', 'SCRIPT_RESULT', /returned a function/],
  ])('%s fails cleanly', async (_, script, code, message) => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const runtime = runtimeFor(
      solution(
        server.url,
        '$evil.f()',
        { evil: script },
        'settings:\n  scripts:\n    timeoutMs: 200\n    memoryLimitMb: 16\n',
      ),
    );
    const failure = await runtime.execute('fn').catch((e: unknown) => e);
    expect(failure).toMatchObject({ code, message: expect.stringMatching(message) });
    // The expression that called it is named too.
    expect((failure as Error).message).toContain('functions/fn.platform:4:');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('after a timeout the next call gets a fresh sandbox; solutions never share one', async () => {
    const server = await testServer((_, res) => json(res, 200, { n: 1 }));
    const counter = `let calls = 0;
export function count() { globalThis.seen = (globalThis.seen ?? 0) + 1; return ++calls; }
export function spin(n) { if (n > 0) for (;;) {} return n; }
export function seen() { return globalThis.seen ?? 0; }
`;
    const settings = 'settings:\n  scripts:\n    timeoutMs: 200\n';
    const a = runtimeFor(solution(server.url, '[$s.count(), $s.count()]', { s: counter }, settings));
    expect(await a.execute('fn')).toMatchObject({ output: [1, 2] });
    // Another solution with the same module: its own state.
    const b = runtimeFor(solution(server.url, '$s.seen()', { s: counter }, settings));
    expect(await b.execute('fn')).toMatchObject({ output: 0 });
    const spinning = runtimeFor(solution(server.url, '[$s.count(), $s.spin(n)]', { s: counter }, settings));
    await expect(spinning.execute('fn')).rejects.toMatchObject({ code: 'SCRIPT_TIMEOUT' });
    const after = runtimeFor(solution(server.url, '$s.count()', { s: counter }, settings));
    expect(await after.execute('fn')).toMatchObject({ output: 1 });
  });

  test('a module that does not load stops execution with SCRIPT_LOAD and where', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const runtime = runtimeFor(solution(server.url, '1', { bad: 'export function f( {' }));
    await expect(runtime.execute('fn')).rejects.toMatchObject({
      code: 'SCRIPT_LOAD',
      message: expect.stringMatching(
        /scripts\/expressions\/bad\.js:1:\d+: the module does not load: SyntaxError/,
      ),
    });
    expect(server.requests).toHaveLength(0);
  });
  test('a recursion that overflows any stack fails its call only: the sandbox is replaced, later calls work, closing never throws', async () => {
    const sandbox = new ScriptSandbox([
      {
        name: 'm',
        file: 'scripts/expressions/m.js',
        source:
          'let n = 0;\nexport function down(d) { return down(d + 1) + 1; }\nexport function count() { return ++n; }\n',
      },
    ]);
    await sandbox.load();
    expect(sandbox.call('m', 'count', [])).toBe(1);
    // Called from ever deeper in Node's own stack: QuickJS's stack check fires first at shallow
    // depths; deeper, V8's stack runs out inside the interpreter (the host-level path that once
    // left the sandbox broken and aborted the WebAssembly instance when it was freed).
    const seen = new Set<string>();
    const from = (depth: number): unknown => (depth > 0 ? from(depth - 1) : sandbox.call('m', 'down', [0]));
    for (let depth = 0; depth <= 8000 && !seen.has('host'); depth += 250) {
      await sandbox.load();
      let failure: unknown;
      try {
        from(depth);
      } catch (error) {
        failure = error;
      }
      expect(failure).toMatchObject({ code: 'SCRIPT_ERROR' });
      seen.add(/InternalError: stack overflow/.test((failure as Error).message) ? 'quickjs' : 'host');
      await sandbox.load();
      // A fresh sandbox: module state starts again, and it answers.
      expect(sandbox.call('m', 'count', [])).toBe(1);
    }
    expect([...seen].sort()).toEqual(['host', 'quickjs']);
    expect(() => sandbox.close()).not.toThrow();
  });
});
