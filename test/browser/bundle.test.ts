import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import { beforeAll, describe, expect, test } from 'vitest';
import { chunkRenames } from '../../scripts/browser-chunk-names.mjs';
import { outputsOf, startFiles } from '../../scripts/browser-start.mjs';
import { RULES } from '../../src/definition/rule-codes.js';
import { ERROR_CODES } from '../../src/errors/codes.js';

/**
 * The browser build (scripts/build-browser.mjs, run by test/global-setup.ts when src is newer) as a
 * page gets it, without a browser: dist/browser imports nothing but its own files, each library
 * module with Node-only code was replaced by its `X.browser.ts` sibling (which exports what `X.ts`
 * does), and what a page loads at start leaves out the lazily loaded chunks.
 */
const root = join(import.meta.dirname, '..', '..');
const dist = join(root, 'dist', 'browser');
type Meta = Record<string, { inputs: Record<string, { imports: Array<{ path: string }> }> }>;
let meta: Meta;

beforeAll(() => {
  meta = JSON.parse(readFileSync(join(root, 'dist', 'browser-meta.json'), 'utf8'));
});

/** Every module specifier `file` imports (static, dynamic, re-export or require), parsed by esbuild. */
async function specifiersOf(file: string): Promise<Array<{ path: string; kind: string }>> {
  const found: Array<{ path: string; kind: string }> = [];
  await build({
    entryPoints: [file],
    bundle: true,
    write: false,
    format: 'esm',
    logLevel: 'silent',
    plugins: [
      {
        name: 'record',
        setup(b) {
          b.onResolve({ filter: /.*/ }, (args) => {
            if (args.kind === 'entry-point') return undefined;
            found.push({ path: args.path, kind: args.kind });
            return { path: args.path, external: true };
          });
        },
      },
    ],
  });
  return found;
}

/** The names a module exports: values as esbuild sees them, types from its `export` statements. */
async function exportsOf(file: string): Promise<string[]> {
  const result = await build({
    entryPoints: [file],
    bundle: true,
    write: false,
    format: 'esm',
    metafile: true,
    logLevel: 'silent',
    plugins: [
      {
        name: 'external',
        setup(b) {
          b.onResolve({ filter: /.*/ }, (args) =>
            args.kind === 'entry-point' ? undefined : { path: args.path, external: true },
          );
        },
      },
    ],
  });
  const values = Object.values(result.metafile.outputs).flatMap((o) => o.exports);
  const text = readFileSync(file, 'utf8');
  const types = [
    ...[...text.matchAll(/^export (?:declare )?(?:type|interface) (\w+)/gm)].map((m) => m[1]!),
    ...[...text.matchAll(/^export type \{([^}]*)\}/gm)].flatMap((m) =>
      m[1]!.split(',').map(
        (n) =>
          n
            .trim()
            .split(/\s+as\s+/)
            .pop()!,
      ),
    ),
  ].filter(Boolean);
  return [...new Set([...values, ...types])].sort();
}

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(suffix))
    .map((e) => join(e.parentPath, e.name));
}

describe('the browser build in dist/browser', () => {
  test('its JavaScript imports only its own files: no bare specifier, no Node built-in', async () => {
    const scripts = readdirSync(dist).filter((f) => f.endsWith('.js'));
    expect(scripts).toContain('index.js');
    expect(scripts).toContain('worker.js');
    const outside: string[] = [];
    for (const file of scripts)
      for (const { path, kind } of await specifiersOf(join(dist, file)))
        if (!/^\.\/[^/]+\.js$/.test(path) || !existsSync(join(dist, path)))
          outside.push(`${file}: ${kind} '${path}'`);
    expect(outside).toEqual([]);
  }, 120_000);

  test('every X.browser.ts sibling exports the names its X.ts exports', async () => {
    const siblings = filesUnder(join(root, 'src'), '.browser.ts');
    expect(siblings.length).toBeGreaterThan(5);
    for (const sibling of siblings) {
      const original = sibling.replace(/\.browser\.ts$/, '.ts');
      const name = relative(root, sibling);
      expect(existsSync(original), `${name} stands in for a module that is not there`).toBe(true);
      expect(await exportsOf(sibling), name).toEqual(await exportsOf(original));
    }
  }, 120_000);

  test('holds no module that has a browser sibling, but where the sibling itself loads it lazily', () => {
    const wrong: string[] = [];
    for (const build of Object.values(meta))
      for (const [input, { imports }] of Object.entries(build.inputs))
        for (const { path } of imports)
          if (path.startsWith('src/') && existsSync(join(root, path.replace(/\.ts$/, '.browser.ts'))))
            if (input !== path.replace(/\.ts$/, '.browser.ts')) wrong.push(`${input} -> ${path}`);
    expect(wrong).toEqual([]);
    // And the siblings did go in (the plugin ran): the transport is fetch's.
    const inputs = Object.values(meta).flatMap((b) => Object.keys(b.inputs));
    expect(inputs).toContain('src/http/transport.browser.ts');
    expect(inputs).not.toContain('src/http/transport.ts');
  });

  test("a page's start leaves out SQLite's glue, QuickJS, fast-xml-parser, the call step and the script sandbox; JSONata loads when the client opens", () => {
    const start = startFiles(meta);
    expect(start.slice(0, 2)).toEqual(['index.js', 'worker.js']);
    const outputs = outputsOf(meta);
    const atStart = start.flatMap((file) => Object.keys(outputs.get(file)!.inputs));
    // JSONata: its own chunk, counted with the start (the worker loads it when the client opens, so
    // that an action taken offline later needs no download).
    expect(start.filter((file) => /^jsonata-/.test(file))).toHaveLength(1);
    expect(atStart.some((input) => /node_modules\/jsonata\//.test(input))).toBe(true);
    for (const lazy of [
      /@sqlite\.org\/sqlite-wasm/,
      /quickjs/,
      /fast-xml-parser/,
      /^src\/runtime\/call\.ts$/,
      /^src\/runtime\/call-step\.ts$/,
      /^src\/http\/parse-body\.ts$/,
      /^src\/expression\/scripts\/sandbox\.ts$/,
    ])
      expect(
        atStart.filter((input) => lazy.test(input)),
        String(lazy),
      ).toEqual([]);
    // They are in the build, as chunks of their own.
    const all = [...outputs.values()].flatMap((o) => Object.keys(o.inputs));
    for (const input of [
      'src/runtime/call.ts',
      'src/runtime/call-step.ts',
      'src/http/parse-body.ts',
      'src/expression/scripts/sandbox.ts',
    ])
      expect(all).toContain(input);
  });

  test("names SQLite's and QuickJS's chunks for what they hold", () => {
    const files = readdirSync(dist);
    const outputs = outputsOf(meta);
    const holding = (pattern: RegExp) =>
      [...outputs].filter(([, o]) => Object.keys(o.inputs).some((i) => pattern.test(i))).map(([f]) => f);
    const sqlite = holding(/@sqlite\.org\/sqlite-wasm/);
    expect(sqlite).toHaveLength(1);
    expect(sqlite[0]).toMatch(/^sqlite-wasm-[A-Z0-9]{8}\.js$/);
    const quickjs = holding(/quickjs-emscripten-core|@jitl\/quickjs/);
    expect(quickjs.length).toBeGreaterThan(0);
    for (const file of quickjs) expect(file).toMatch(/^quickjs-/);
    for (const file of [...sqlite, ...quickjs]) expect(files).toContain(file);
    // Nothing left to rename: the metafile is the renamed one.
    expect([...chunkRenames(meta.worker as never)]).toEqual([]);
  });

  test('keeps every error code and validation rule, without the meanings only the reference docs read', () => {
    const text = readdirSync(dist)
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(dist, f), 'utf8'))
      .join('\n');
    // Each code and rule as a key of its table (`USAGE:`), whatever the minifier made of its entry.
    const names = [...Object.keys(ERROR_CODES), ...Object.keys(RULES)];
    expect(names.filter((name) => !new RegExp(`[{,]${name}:`).test(text))).toEqual([]);
    expect(text.includes(ERROR_CODES.INTERNAL.meaning)).toBe(false);
    expect(text.includes(RULES.YAML_SYNTAX.summary)).toBe(false);
  });
});
