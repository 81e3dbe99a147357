import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';
import { startPlatformProcess } from '../helpers/platform.js';

/**
 * restfn as a registry user gets it: `npm pack` of the built checkout, installed into an empty
 * folder with `npm install ./restfn-*.tgz` (dependencies from the registry, or npm's cache), then
 * its CLI, its platform and its library used from there, and its types compiled there.
 */
const root = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);
let dir: string;
let installed: string;
let installOutput: string;
let files: string[];
let tarball: { size: number; unpackedSize: number };
/** `du -s --apparent-size` of the app's node_modules right after the install, in bytes. */
let installedBytes: number;
const MB = 1024 * 1024;
const DATES_SCRIPT = `import { addDays, format } from 'date-fns';
export function nextDay(iso) {
  return format(addDays(new Date(iso), 1), 'yyyy-MM-dd');
}
`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'restfn-pack-'));
  const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: root });
  const [info] = JSON.parse(packed.stdout) as Array<{
    filename: string;
    size: number;
    unpackedSize: number;
    files: Array<{ path: string }>;
  }>;
  files = info!.files.map((f) => f.path);
  tarball = { size: statSync(join(dir, info!.filename)).size, unpackedSize: info!.unpackedSize };
  installed = join(dir, 'app');
  mkdirSync(installed);
  // As the README says: npm (11) runs a dependency's install script only when the project's
  // `allowScripts` names it, and warns about each it has not been told about.
  writeFileSync(
    join(installed, 'package.json'),
    JSON.stringify({ name: 'app', private: true, type: 'module', allowScripts: { 'better-sqlite3': true } }),
  );
  const install = await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', join(dir, info!.filename)],
    { cwd: installed, maxBuffer: 16 * 1024 * 1024 },
  );
  installOutput = install.stdout + install.stderr;
  const du = await run('du', ['-s', '--apparent-size', '--block-size=1', join(installed, 'node_modules')]);
  installedBytes = Number(du.stdout.split(/\s/)[0]);
  console.log(
    `package: tarball ${tarball.size} bytes, ${files.length} files, ${tarball.unpackedSize} unpacked; node_modules ${installedBytes} bytes`,
  );
  // A TypeScript user's own step (the README's): Node's and better-sqlite3's types, optional peers.
  await run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '-D',
      '@types/node@20',
      '@types/better-sqlite3',
    ],
    {
      cwd: installed,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
}, 600_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bin = () => join(installed, 'node_modules', 'restfn', 'dist', 'bin', 'restfn.js');

describe('the package from npm pack', () => {
  test('holds LICENSE, README and dist (with the patched JSONata and the console), and nothing else', () => {
    for (const needed of [
      'LICENSE',
      'README.md',
      'package.json',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/bin/restfn.js',
      'dist/platform/executor/worker.js',
      'dist/vendor/jsonata.cjs',
      'dist/vendor/jsonata.LICENSE',
      'dist/console/index.html',
      // The browser client (restfn/client): its entry, worker, SQLite's WebAssembly and its types.
      'dist/browser/index.js',
      'dist/browser/worker.js',
      'dist/browser/sqlite3.wasm',
      'dist/browser/types/client/index.d.ts',
    ])
      expect(files).toContain(needed);
    expect(files.filter((f) => !/^(LICENSE|README\.md|package\.json|dist\/.+)$/.test(f))).toEqual([]);
    const manifest = JSON.parse(
      readFileSync(join(installed, 'node_modules', 'restfn', 'package.json'), 'utf8'),
    );
    // No script of restfn's runs when it is installed.
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare'])
      expect(manifest.scripts?.[hook], hook).toBeUndefined();
  });

  test('installs without an engine warning on the Node versions engines names, and runs none of its own scripts', () => {
    expect(installOutput).not.toMatch(/EBADENGINE/);
    expect(installOutput).not.toMatch(/restfn@[\d.]+ \(/);
  });

  test('is small: tarball <= 3.5 MB, no source maps or build metadata, node_modules <= 80 MB without type packages or optional decoders', () => {
    // Issue 38: 9.7 MB and 842 files, 29.6 MB of them source maps; 153 MB installed; limit 3 MB.
    // Issue 40 added the browser client (dist/browser), whose two WebAssembly modules (SQLite's,
    // QuickJS's) are 0.64 MB of the tarball by themselves: 3.22 MB then.
    expect(tarball.size).toBeLessThanOrEqual(3.5 * MB);
    expect(
      files.filter((f) => f.endsWith('.map') || f === 'dist/bin/meta.json' || f === 'dist/browser-meta.json'),
    ).toEqual([]);
    expect(installedBytes).toBeLessThanOrEqual(80 * MB);
    const modules = join(installed, 'node_modules');
    // The HEIC decoder, Postman's SDK (with its fake-data library) and date-fns (scripts read restfn's
    // copy of its 90 KB bundle) are not installed for everyone;
    // type packages only by a TypeScript user (the second install above).
    for (const absent of ['heic-convert', 'libheif-js', 'postman-collection', '@faker-js/faker', 'date-fns'])
      expect(existsSync(join(modules, absent)), absent).toBe(false);
    const manifest = JSON.parse(readFileSync(join(modules, 'restfn', 'package.json'), 'utf8'));
    expect(Object.keys(manifest.dependencies).filter((d) => d.startsWith('@types/'))).toEqual([]);
  });

  test('installs without a warning when the project allows better-sqlite3 its build, as the README says', () => {
    expect(installOutput).not.toMatch(/npm warn/i);
  });

  test("an expression script imports date-fns from restfn's copy (the package is not installed)", async () => {
    expect(existsSync(join(installed, 'node_modules', 'date-fns'))).toBe(false);
    const server = await testServer((_, res) => json(res, 200, { due: '2026-03-05T10:00:00Z' }));
    const solution = join(dir, 'dates');
    mkdirSync(join(solution, 'functions'), { recursive: true });
    mkdirSync(join(solution, 'scripts', 'expressions'), { recursive: true });
    writeFileSync(join(solution, 'solution.yaml'), 'name: s\n');
    writeFileSync(join(solution, 'scripts', 'expressions', 'dates.js'), DATES_SCRIPT);
    writeFileSync(
      join(solution, 'functions', 'rest-get-due.platform'),
      `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/due\noutputTransform: '$dates.nextDay(due)'\n`,
    );
    const ran = await runCli(['run', 'rest-get-due'], { cwd: solution, cli: bin() });
    expect(ran.stderr).toBe('');
    expect(JSON.parse(ran.stdout)).toBe('2026-03-06');
  }, 60_000);

  test('npx restfn --help lists the commands', async () => {
    const help = await run('npx', ['--no-install', 'restfn', '--help'], { cwd: installed });
    for (const command of ['validate', 'run', 'serve'])
      expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
  });

  test('a HEIC conversion without the optional decoder is CONVERSION_UNAVAILABLE saying how to install it', async () => {
    // The checkout (heic-convert installed as a devDependency) sends the photo as a JPEG.
    const heic = readFileSync(join(root, 'test', 'fixtures', 'images', 'sample-32x24.heic'));
    const server = await testServer((_, res) => json(res, 200, { ok: true }));
    const solution = join(dir, 'heic');
    mkdirSync(join(solution, 'functions'), { recursive: true });
    writeFileSync(join(solution, 'solution.yaml'), 'name: s\n');
    writeFileSync(
      join(solution, 'functions', 'rest-create-photo.platform'),
      `provider: DATA_PROVIDER_REST\nmethod: POST\nurl: ${server.url}/photos\nparameters:\n  photo: { location: body, type: string, required: true }\nconversions:\n  - property: photo\n    from: base64\n    to: base64\n    convertHeicToJpg: true\n`,
    );
    const args = ['run', 'rest-create-photo', '-p', `photo=${heic.toString('base64')}`];
    const ran = await runCli(args, { cwd: solution, cli: bin() });
    expect(ran.stderr).toContain('CONVERSION_UNAVAILABLE');
    expect(ran.stderr).toContain('npm install heic-convert');
    expect(ran.code).not.toBe(0);
    expect(server.requests).toHaveLength(0);
    const checkout = await runCli(args, { cwd: solution });
    expect(checkout.code, checkout.stderr).toBe(0);
    expect(JSON.parse(server.requests[0]!.body).photo).toMatch(/^\/9j\//);
  }, 60_000);

  test('npx restfn validates and runs as the checkout does', async () => {
    const server = await testServer((req, res) => json(res, 200, { items: [{ id: 1, path: req.url }] }));
    const solution = join(dir, 'solution');
    mkdirSync(join(solution, 'functions'), { recursive: true });
    writeFileSync(join(solution, 'solution.yaml'), 'name: s\n');
    writeFileSync(
      join(solution, 'functions', 'rest-get-items.platform'),
      `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/items\nparameters:\n  page: { location: query, type: int }\noutputTransform: 'items[id > 0].{ "id": id, "path": path }'\n`,
    );
    for (const args of [
      ['validate'],
      ['run', 'rest-get-items', '-p', 'page=2'],
      ['run', 'rest-get-items', '-p', 'pgae=2'],
    ]) {
      const [fromPackage, fromCheckout] = await Promise.all([
        runCli(args, { cwd: solution, cli: bin() }),
        runCli(args, { cwd: solution }),
      ]);
      expect(fromPackage, args.join(' ')).toEqual(fromCheckout);
    }
    const ran = await runCli(['run', 'rest-get-items', '-p', 'page=2'], { cwd: solution, cli: bin() });
    expect(JSON.parse(ran.stdout)).toEqual({ id: 1, path: '/items?page=2' });
    // The package's bin is linked where npx finds it.
    const npx = await run('npx', ['--no-install', 'restfn', '--version'], { cwd: installed });
    expect(npx.stdout.trim()).toBe(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
  }, 60_000);

  test("import { createRuntime } from 'restfn' runs a function with restfn's patched JSONata", async () => {
    const server = await testServer((_, res) => json(res, 200, { items: [{ id: 7 }, { id: 8 }] }));
    const solution = join(installed, 'solution');
    mkdirSync(join(solution, 'functions'), { recursive: true });
    writeFileSync(join(solution, 'solution.yaml'), 'name: s\n');
    writeFileSync(
      join(solution, 'functions', 'rest-get-items.platform'),
      `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/items\noutputTransform: items.id\n`,
    );
    writeFileSync(
      join(installed, 'main.mjs'),
      `import { createRequire } from 'node:module';
import { createRuntime, loadSolution } from 'restfn';
const runtime = createRuntime(loadSolution('solution'));
const result = await runtime.execute('rest-get-items', {});
await runtime.close();
const loaded = Object.keys(createRequire(import.meta.url).cache).filter((p) => /jsonata/.test(p));
console.log(JSON.stringify({ output: result.output, loaded }));
`,
    );
    const { stdout } = await run(process.execPath, ['main.mjs'], { cwd: installed });
    const { output, loaded } = JSON.parse(stdout);
    expect(output).toEqual([7, 8]);
    expect(loaded).toEqual([join(installed, 'node_modules', 'restfn', 'dist', 'vendor', 'jsonata.cjs')]);
  }, 60_000);

  test("import { evaluate } from 'restfn' evaluates as functions do: @ctx, bindings, direct off, coded errors", async () => {
    writeFileSync(
      join(installed, 'evaluate.mjs'),
      `import { evaluate, ExpressionError } from 'restfn';
const input = { items: [{ id: 1, price: 5 }, { id: 2, price: 1 }], 'x-total': 2 };
const answers = [
  await evaluate('=items[price > @ctx.parameters.min].id', input, { context: { parameters: { min: 3 } } }),
  await evaluate('items.{ "id": id }', input, { direct: false }),
  await evaluate('$substring(?, 0, 2)($greeting)', null, { bindings: { greeting: 'hello' } }),
  await evaluate('@.queries.current-record.id', null, { context: { queries: { 'current-record': { id: 'r' } } } }),
  await evaluate('$.\`x-total\`', input),
];
const failure = await evaluate('$number("x")').catch((e) => e);
console.log(JSON.stringify({ answers, error: failure instanceof ExpressionError, code: failure.code, jsonataCode: failure.jsonataCode }));
`,
    );
    const { stdout } = await run(process.execPath, ['evaluate.mjs'], { cwd: installed });
    expect(JSON.parse(stdout)).toEqual({
      answers: [1, [{ id: 1 }, { id: 2 }], 'he', 'r', 2],
      error: true,
      code: 'EXPRESSION_EVALUATION',
      jsonataCode: 'D3030',
    });
  }, 60_000);

  test("the README's library examples compile against the installed types, skipLibCheck off", async () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    writeFileSync(join(installed, 'readme.ts'), `${blocks.join('\n')}\nexport {};\n`);
    writeFileSync(
      join(installed, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2023',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: false,
          noEmit: true,
        },
        files: ['readme.ts'],
      }),
    );
    // restfn and the optional peers a TypeScript user adds (@types/node, @types/better-sqlite3).
    const tsc = join(root, 'node_modules', '.bin', 'tsc');
    const checked = await run(tsc, ['-p', join(installed, 'tsconfig.json')]).then(
      () => ({ code: 0, out: '' }),
      (error: { code?: number; stdout?: string }) => ({ code: error.code ?? 1, out: error.stdout ?? '' }),
    );
    expect(checked.out).toBe('');
    expect(checked.code).toBe(0);
  }, 120_000);

  test("a bundler resolves import 'restfn/client' to the browser build, and an app compiles against its types", async () => {
    const web = join(installed, 'web');
    mkdirSync(web, { recursive: true });
    writeFileSync(
      join(web, 'main.ts'),
      `import { type ClientOptions, type ClientStatus, createClient, RestfnClient, RestfnClientError } from 'restfn/client';
const options: ClientOptions = { server: location.origin, token: 'rfn_x', solution: 'crm' };
export async function start(): Promise<ClientStatus> {
  const client: RestfnClient = await createClient(options);
  const rows = await client.query<{ id: string }>('SELECT id FROM [customers]');
  console.log(rows.map((r) => r.id), client instanceof RestfnClient);
  return client.status;
}
export const isClientError = (e: unknown) => e instanceof RestfnClientError && typeof e.code === 'string';
`,
    );
    const { build } = await import('esbuild');
    const bundled = await build({
      entryPoints: [join(web, 'main.ts')],
      absWorkingDir: web,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    expect(bundled.errors).toEqual([]);
    // From the installed package's browser build (not the Node library), its worker beside it.
    const inputs = Object.keys(bundled.metafile.inputs);
    expect(inputs).toContain('../node_modules/restfn/dist/browser/index.js');
    expect(inputs.filter((i) => i.includes('restfn/dist/') && !i.includes('dist/browser/'))).toEqual([]);
    expect(bundled.outputFiles[0]!.text).toContain('worker.js');
    writeFileSync(
      join(web, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2023',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          lib: ['ES2023', 'DOM'],
          types: [],
          strict: true,
          skipLibCheck: false,
          noEmit: true,
        },
        files: ['main.ts'],
      }),
    );
    const tsc = join(root, 'node_modules', '.bin', 'tsc');
    const checked = await run(tsc, ['-p', join(web, 'tsconfig.json')]).then(
      () => ({ code: 0, out: '' }),
      (error: { code?: number; stdout?: string }) => ({ code: error.code ?? 1, out: error.stdout ?? '' }),
    );
    expect(checked.out).toBe('');
    expect(checked.code).toBe(0);
  }, 120_000);

  test('restfn serve from the package publishes, executes in its workers and serves the console', async () => {
    const server = await testServer((_, res) => json(res, 200, { ok: true, due: '2026-03-05T10:00:00Z' }));
    const platform = await startPlatformProcess({ cli: bin(), args: ['--allow-private-targets'] });
    const admin = platform.adminToken;
    const published = await platform.api('PUT', '/api/v1/solutions/crm', {
      token: admin,
      body: {
        files: {
          'functions/rest-get-ok.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/ok\noutputTransform: ok\n`,
          // date-fns is not installed with restfn: scripts read the copy of its bundle in dist/vendor/.
          'scripts/expressions/dates.js': DATES_SCRIPT,
          'functions/rest-get-due.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/due\noutputTransform: '$dates.nextDay(due)'\n`,
        },
      },
    });
    expect(published.status, published.text).toBe(201);
    const executed = await platform.api('POST', '/api/v1/solutions/crm/functions/rest-get-ok/execute', {
      token: admin,
      body: {},
    });
    expect(executed.body).toMatchObject({ status: 'ok', output: true });
    const due = await platform.api('POST', '/api/v1/solutions/crm/functions/rest-get-due/execute', {
      token: admin,
      body: {},
    });
    expect(due.body).toMatchObject({ status: 'ok', output: '2026-03-06' });
    const page = await fetch(`${platform.url}/console/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="app">');
  }, 120_000);
});
