import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Module, SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { CLI } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';
import { tempSolution } from '../helpers/temp-solution.js';

// Start-up is loading modules (issue 11): each command loads what it runs, no more. Counted, not
// timed: the packages a command imports, recorded by a module resolution hook in the CLI's process.
// The CLI is bundled (scripts/build-cli.mjs): a file it loads from dist/bin/ stands for the source
// modules esbuild put in it, which the build's metafile (dist/bin/meta.json) lists. A command's
// action is one script with everything it may run (dist/bin/commands/); what of it ran is what V8's
// coverage saw called, mapped back to the sources by the script's source map.

const root = join(import.meta.dirname, '..', '..');
const meta = JSON.parse(readFileSync(join(dirname(CLI), 'meta.json'), 'utf8')) as {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
};
const COMMANDS = join(dirname(CLI), 'commands');

/** The source files behind a loaded module: its bundle file's inputs, else the file itself. */
function sourcesOf(url: string): string[] {
  if (!url.startsWith('file:')) return [url];
  const file = relative(root, fileURLToPath(url));
  if (!file.startsWith(join('dist', 'bin'))) return [file];
  const output = meta.outputs[file.split('\\').join('/')];
  if (!output) throw new Error(`${file} is not in dist/bin/meta.json: stale build?`);
  return Object.keys(output.inputs);
}

/** The sources of the command scripts whose functions ran, from a NODE_V8_COVERAGE folder. */
function sourcesRun(coverage: string): string[] {
  const sources: string[] = [];
  for (const name of readdirSync(coverage)) {
    const { result } = JSON.parse(readFileSync(join(coverage, name), 'utf8')) as {
      result: Array<{
        url: string;
        functions: Array<{ ranges: Array<{ startOffset: number; count: number }> }>;
      }>;
    };
    for (const script of result) {
      const file = script.url.startsWith('file:') ? fileURLToPath(script.url) : script.url;
      if (dirname(file) !== COMMANDS) continue;
      const text = readFileSync(file, 'utf8');
      const map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
      const lineStarts = [0];
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
      // The script is the file inside Node's CommonJS wrapper (src/cli/command-bundle.ts).
      const prefix = (Module as unknown as { wrapper: string[] }).wrapper[0]!.length;
      for (const { ranges } of script.functions) {
        if (ranges[0]!.count === 0) continue;
        const offset = ranges[0]!.startOffset - prefix;
        let line = lineStarts.length - 1;
        while (lineStarts[line]! > offset) line--;
        const entry = map.findEntry(line, offset - lineStarts[line]!) as { originalSource?: string };
        // esbuild names sources relative to the map; its own virtual modules by a namespace.
        const source = entry.originalSource && new URL(entry.originalSource, pathToFileURL(file));
        if (source && source.protocol === 'file:') sources.push(relative(root, fileURLToPath(source)));
      }
    }
  }
  return sources;
}

const dir = mkdtempSync(join(tmpdir(), 'restfn-startup-'));
const hooks = join(dir, 'hooks.mjs');
writeFileSync(
  hooks,
  `import { appendFileSync } from 'node:fs';
let out;
export function initialize(data) { out = data.out; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(out, resolved.url + '\\n');
  return resolved;
}
`,
);
const register = join(dir, 'register.mjs');
writeFileSync(
  register,
  `import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
register(${JSON.stringify(pathToFileURL(hooks).href)}, { data: { out: process.env.LOADED_MODULES } });
// CommonJS modules (require() calls, which the hook does not see) are in require's cache; Node's
// built-in modules in process.moduleLoadList.
process.on('exit', () => {
  appendFileSync(process.env.LOADED_MODULES, Object.keys(createRequire(import.meta.url).cache).join('\\n'));
  const builtins = process.moduleLoadList.filter((m) => m.startsWith('NativeModule '));
  appendFileSync(process.env.LOADED_MODULES, '\\n' + builtins.map((m) => 'builtin:' + m.slice(13)).join('\\n'));
});
`,
);

/** The npm packages `restfn ...args` loads, by name (asynchronously: tests' servers keep answering). */
async function packagesLoaded(
  args: string[],
  cwd = process.cwd(),
): Promise<{ packages: Set<string>; sources: Set<string>; builtins: Set<string>; stdout: string }> {
  const out = join(dir, `loaded-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(out, '');
  const coverage = mkdtempSync(join(dir, 'coverage-'));
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', pathToFileURL(register).href, CLI, ...args],
    { cwd, encoding: 'utf8', env: { ...process.env, LOADED_MODULES: out, NODE_V8_COVERAGE: coverage } },
  );
  const packages = new Set<string>();
  const sources = new Set<string>();
  const builtins = new Set<string>();
  const add = (source: string) => {
    sources.add(source);
    const name = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source)?.[1];
    if (name) packages.add(name);
  };
  for (const line of readFileSync(out, 'utf8').split('\n')) {
    if (!line) continue;
    if (line.startsWith('builtin:')) builtins.add(line.slice('builtin:'.length));
    else if (dirname(line) !== COMMANDS)
      sourcesOf(line.startsWith('/') ? pathToFileURL(line).href : line).forEach(add);
  }
  sourcesRun(coverage).forEach(add);
  return { packages, sources, builtins, stdout };
}

describe('start-up loads only what the command runs', () => {
  test('--help loads commander and nothing else', async () => {
    const { packages, sources, stdout } = await packagesLoaded(['--help']);
    expect(stdout).toContain('Usage: restfn');
    expect([...packages]).toEqual(['commander']);
    // The bundle's files were mapped back to their sources (the check above cannot pass vacuously).
    expect(sources).toContain('src/cli/main.ts');
    expect(sources).toContain('src/cli/commands/run.ts');
    expect(sources).not.toContain('src/cli/commands/run-action.ts');
  });

  test('validate loads no HTTP client, database, OAuth client or XML parser', async () => {
    const root = tempSolution({
      'functions/rest-get-items.platform':
        'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: https://api.example.com/items\noutputTransform: items\n',
    });
    const { packages, builtins, stdout } = await packagesLoaded(['validate'], root);
    expect(stdout).toContain('1 file checked: 0 errors');
    for (const lazy of ['zlib', 'crypto', 'dns']) expect(builtins).not.toContain(lazy);
    expect(packages).toContain('yaml');
    expect(packages).toContain('zod');
    for (const heavy of [
      'undici',
      'better-sqlite3',
      'oauth4webapi',
      'fast-xml-parser',
      'quickjs-emscripten-core',
      '@readme/openapi-parser',
      'postman-collection',
    ])
      expect(packages).not.toContain(heavy);
  });

  test('import loads the parser of its format only, and no HTTP client, database or OAuth client', async () => {
    const root = tempSolution({ 'solution.yaml': 'name: t\n' });
    const fixtures = join(import.meta.dirname, '..', 'fixtures', 'import');
    const postman = await packagesLoaded(
      ['import', join(fixtures, 'pet-shop.postman_collection.json'), '--dry-run'],
      root,
    );
    expect(postman.stdout).toContain('11 operations, 11 selected');
    // A Postman collection is read as the JSON it is (src/import/postman-collection.ts).
    expect(postman.packages).not.toContain('@readme/openapi-parser');
    const openapi = await packagesLoaded(
      ['import', join(fixtures, 'petstore-swagger-2.0.json'), '--dry-run'],
      root,
    );
    expect(openapi.stdout).toContain('16 operations, 16 selected');
    expect(openapi.packages).toContain('@readme/openapi-parser');
    expect(openapi.packages).not.toContain('postman-collection');
    for (const { packages } of [postman, openapi]) {
      for (const heavy of ['undici', 'better-sqlite3', 'oauth4webapi', 'fast-xml-parser', 'fastify'])
        expect(packages).not.toContain(heavy);
    }
  });

  test('run of a GET without credentials loads no OAuth client, XML parser, database or HTTP/2 client', async () => {
    const server = await testServer((_, res) => json(res, 200, { items: [1, 2] }));
    const root = tempSolution({
      'functions/rest-get-items.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/items\noutputTransform: items\n`,
    });
    const { packages, builtins, stdout } = await packagesLoaded(['run', 'rest-get-items'], root);
    expect(JSON.parse(stdout)).toEqual([1, 2]);
    expect(packages).toContain('undici');
    // undici's HTTP/2 client loads when a connection negotiates HTTP/2 (patches/undici+*.patch).
    expect(builtins).toContain('net');
    expect(builtins).not.toContain('http2');
    // commander's child_process (for executable subcommands) and the login question's readline
    // load only when used (scripts/build-cli.mjs, run-action.ts).
    expect(builtins).not.toContain('child_process');
    expect(builtins).not.toContain('readline/promises');
    // Decoders, hashing and name lookups load when first used: an uncompressed answer from a literal
    // address needs none of them (issue 41, start-up).
    for (const lazy of ['zlib', 'crypto', 'dns']) expect(builtins).not.toContain(lazy);
    for (const heavy of ['oauth4webapi', 'fast-xml-parser', 'quickjs-emscripten-core', 'better-sqlite3'])
      expect(packages).not.toContain(heavy);
  });

  test('run of one GET does not optimise the HTTP parser (WebAssembly tiers up late in the CLI)', async () => {
    const server = await testServer((_, res) => json(res, 200, { items: [1, 2] }));
    const root = tempSolution({
      'functions/rest-get-items.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/items\noutputTransform: items\n`,
    });
    // V8 prints a line per compiled wasm function on stdout: undici's llhttp is compiled with the
    // baseline compiler only; with V8's default budget its parser is recompiled by TurboFan at once.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--trace-wasm-compilation-times', CLI, 'run', 'rest-get-items'],
      { cwd: root, encoding: 'utf8' },
    );
    expect(stdout).toMatch(/using Liftoff/);
    expect(stdout).not.toMatch(/using TurboFan/);
  });
});
