import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from 'vitest';
import { CompletionRequest, ExecuteCommandRequest } from 'vscode-languageserver-protocol/node';
import { runCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';
import { DATASOURCE, FUNCTION } from '../helpers/language-solution.js';
import { openDocument, startLsp } from '../helpers/lsp-client.js';
import { tempSolution } from '../helpers/temp-solution.js';

// `npm run vsix`'s script (editors/vscode/scripts/package.mjs) packages the VS Code extension; the
// .vsix is read as VS Code reads it (a zip), and the server inside it is started alone, from a
// folder with no node_modules above it, and spoken to over LSP.

const ROOT = join(import.meta.dirname, '..', '..');
const PACKAGE = join(ROOT, 'editors', 'vscode', 'scripts', 'package.mjs');

// yauzl is the zip reader vsce itself depends on (`unzip` may not be installed).
interface ZipEntry {
  fileName: string;
}
interface ZipFile {
  readEntry(): void;
  on(event: 'entry', listener: (entry: ZipEntry) => void): void;
  on(event: 'end' | 'error', listener: (error?: Error) => void): void;
  openReadStream(entry: ZipEntry, done: (error: Error | null, stream: NodeJS.ReadableStream) => void): void;
}
const yauzl = createRequire(import.meta.url)('yauzl') as {
  open(
    path: string,
    options: { lazyEntries: boolean },
    done: (error: Error | null, zip: ZipFile) => void,
  ): void;
};

/** Every file of a zip, by its path inside it. */
function readZip(path: string): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true }, (error, zip) => {
      if (error) return reject(error);
      const files = new Map<string, Buffer>();
      zip.on('error', reject);
      zip.on('end', () => resolve(files));
      zip.on('entry', (entry) => {
        if (entry.fileName.endsWith('/')) return zip.readEntry();
        zip.openReadStream(entry, (failed, stream) => {
          if (failed) return reject(failed);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            files.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

interface Manifest {
  main: string;
  engines: { vscode: string };
  activationEvents: string[];
  contributes: {
    languages: Array<{ id: string; extensions: string[]; configuration: string }>;
    grammars: Array<{ language: string; scopeName: string; path: string }>;
    commands: Array<{ command: string; title: string }>;
    configuration: { properties: Record<string, unknown> };
  };
}

function textOf(files: Map<string, Buffer>, path: string): string {
  const file = files.get(path);
  if (!file) throw new Error(`${path} is not in the .vsix: ${[...files.keys()].join(', ')}`);
  return file.toString('utf8');
}

/** The .vsix, packaged once for this file's tests, and unpacked where no node_modules lies above. */
let packaged: Promise<{ vsix: string; files: Map<string, Buffer>; server: string }> | undefined;
const work = mkdtempSync(join(tmpdir(), 'restfn-vsix-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
function pack() {
  packaged ??= (async () => {
    const vsix = join(work, 'restfn.vsix');
    await promisify(execFile)(process.execPath, [PACKAGE, '--out', vsix], { cwd: ROOT });
    const files = await readZip(vsix);
    // The extension's folder as VS Code installs it.
    const installed = join(work, 'installed');
    for (const [path, content] of files) {
      if (!path.startsWith('extension/')) continue;
      mkdirSync(dirname(join(installed, path)), { recursive: true });
      writeFileSync(join(installed, path), content);
    }
    return { vsix, files, server: join(installed, 'extension', 'dist', 'server', 'bin', 'lsp.js') };
  })();
  return packaged;
}

describe("the VS Code extension's .vsix", { timeout: 180_000 }, () => {
  test('npm run vsix packages the extension; the server inside it answers LSP alone', async () => {
    const { files, server } = await pack();
    const text = (path: string) => textOf(files, path);
    const manifest = JSON.parse(text('extension/package.json')) as Manifest;
    expect(manifest.engines.vscode).toBe('^1.91.0');
    expect(manifest.main).toBe('./dist/extension.js');
    // Bundled: it loads nothing but VS Code's API and Node's own modules.
    const required = [...text('extension/dist/extension.js').matchAll(/require\("([^"]+)"\)/g)].map(
      (m) => m[1]!,
    );
    expect(required).toContain('vscode');
    expect(required.filter((name) => name !== 'vscode' && !isBuiltin(name))).toEqual([]);
    expect(manifest.activationEvents).toEqual(['onLanguage:restfn', 'workspaceContains:**/solution.yaml']);
    const [language] = manifest.contributes.languages;
    expect(language).toMatchObject({ id: 'restfn', extensions: ['.platform'] });
    expect(JSON.parse(text(`extension/${language!.configuration.replace('./', '')}`)).comments).toEqual({
      lineComment: '#',
    });
    const [grammar] = manifest.contributes.grammars;
    expect(grammar).toMatchObject({ language: 'restfn', scopeName: 'source.restfn' });
    expect(JSON.parse(text(`extension/${grammar!.path.replace('./', '')}`)).patterns).toEqual([
      { include: 'source.yaml' },
    ]);
    expect(manifest.contributes.commands.map((c) => c.command)).toEqual([
      'restfn.run',
      'restfn.sync',
      'restfn.validate',
      'restfn.publish',
    ]);
    expect(Object.keys(manifest.contributes.configuration.properties).sort()).toEqual([
      'restfn.path',
      'restfn.server.url',
      'restfn.trace.server',
    ]);
    expect(text('extension.vsixmanifest')).toContain('Id="restfn"');
    expect(files.has('extension/LICENSE.txt')).toBe(true);

    const root = tempSolution({
      'functions/rest-get-customers.platform': FUNCTION,
      'datasources/customers.platform': DATASOURCE('rest-get-customers'),
      // A script importing date-fns: loading it needs the sandbox and date-fns the .vsix carries.
      'scripts/expressions/dates.js': `import { addDays, formatISO } from 'date-fns';
export function nextDay(iso) {
  return formatISO(addDays(new Date(iso), 1));
}
`,
      'functions/rest-get-due.platform': `provider: DATA_PROVIDER_REST
method: GET
url: https://api.example.com/due
outputTransform: '{ "next": $dates.nextDy(due) }'
`,
    });
    const lsp = await startLsp(root, { entry: [server], env: { NODE_PATH: '' } });

    const ds = await openDocument(
      lsp,
      join(root, 'datasources', 'customers.platform'),
      DATASOURCE('rest-get-cusomers'),
    );
    expect(ds.diagnostics).toHaveLength(1);
    expect(ds.diagnostics[0]).toMatchObject({
      code: 'UNKNOWN_FUNCTION',
      range: {
        start: { line: 5, character: 16 },
        end: { line: 5, character: 16 + 'rest-get-cusomers'.length },
      },
    });
    expect(ds.diagnostics[0]!.message).toContain("'rest-get-customers'");

    const due = join(root, 'functions', 'rest-get-due.platform');
    const fn = await openDocument(
      lsp,
      due,
      `provider: DATA_PROVIDER_REST
method: GET
url: https://api.example.com/due
outputTransform: '{ "next": $dates.nextDy(due) }'
`,
    );
    // The script loaded (no SCRIPT_LOAD): its exports are known, so the typo is named.
    expect(fn.diagnostics.map((d) => d.code)).toEqual(['UNKNOWN_NAME']);
    expect(fn.diagnostics[0]!.message).toContain('nextDay');
    expect(lsp.stderr()).toBe('');
    expect(await lsp.stop()).toBe(0);
  });

  test('only what the server loads: one re2js build, no type declarations, READMEs or maps, no HEIC decoder', async () => {
    const { vsix, files, server } = await pack();
    const paths = [...files.keys()];
    expect(paths.filter((p) => /\.(d\.[cm]?ts|map)$/.test(p) || /\/dist\/.*\/README[^/]*$/i.test(p))).toEqual(
      [],
    );
    expect(paths.filter((p) => p.includes('/re2js/build/'))).toEqual([
      'extension/dist/server/node_modules/re2js/build/index.cjs',
    ]);
    // heic-convert's WebAssembly (libheif-js, 1.9 MB) was bundled into the server before.
    expect(textOf(files, 'extension/dist/server/bin/lsp.js')).not.toContain('libheif');
    // Measured when written: 0.93 MB (.vsix), 1.7 MB (the server's bundle).
    expect(statSync(vsix).size).toBeLessThan(1_100_000);
    expect(statSync(server).size).toBeLessThan(2_000_000);
  });

  test('without SQLite, Run and Sync say what to install (SQLITE_UNAVAILABLE); completion still answers', async () => {
    const { server } = await pack();
    const api = await testServer((_req, res) => json(res, 200, { items: [{ id: 'c1', name: 'Ada' }] }));
    const fn = `provider: DATA_PROVIDER_REST
method: GET
url: ${api.url}/customers
records: $.items
parameters:
  apiKey:
    location: query
    type: secret
    value: crm-key
`;
    const root = tempSolution({
      'solution.yaml': 'name: shop\n',
      'functions/rest-get-customers.platform': fn,
      'datasources/customers.platform': DATASOURCE('rest-get-customers'),
    });
    const config = join(root, 'config');
    // A local credential store written by the built CLI (with SQLite): the packaged server cannot read it.
    const stored = await runCli(['credentials', 'set', 'crm-key', '--kind', 'secret'], {
      cwd: root,
      env: { XDG_CONFIG_HOME: config },
      input: 'Lc4l-S3cret-Value-9f2Q',
    });
    expect(stored.code, stored.stderr).toBe(0);
    const lsp = await startLsp(root, { entry: [server], env: { NODE_PATH: '', XDG_CONFIG_HOME: config } });
    const failure = (command: string, args: unknown[]) =>
      lsp.client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args }).then(
        (answer) => ({ answer }),
        (error: { message: string; data: unknown }) => error,
      );
    for (const [command, name] of [
      ['restfn.run', 'rest-get-customers'],
      ['restfn.sync', 'customers'],
    ] as const) {
      const failed = await failure(command, [name]);
      expect(failed, command).toMatchObject({ data: { code: 'SQLITE_UNAVAILABLE' } });
      expect((failed as { message: string }).message).toContain('npm install restfn');
      expect((failed as { message: string }).message).toContain('restfn.path');
    }

    const marked = fn.replace('value: crm-key', 'value: ');
    const path = join(root, 'functions', 'rest-get-customers.platform');
    const { uri } = await openDocument(lsp, path, marked);
    const lines = marked.split('\n');
    const line = lines.findIndex((l) => l.includes('value: '));
    const answer = await lsp.client.sendRequest(CompletionRequest.type, {
      textDocument: { uri },
      position: { line, character: lines[line]!.length },
    });
    // No credential keys (the store needs SQLite), and no error.
    const items = Array.isArray(answer) ? answer : (answer?.items ?? []);
    expect(items.map((i) => i.label)).not.toContain('crm-key');
    expect(lsp.stderr()).toBe('');
    expect(await lsp.stop()).toBe(0);
  });
});
