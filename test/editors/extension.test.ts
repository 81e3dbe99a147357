import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { answerDocument, commandArguments } from '../../editors/vscode/src/command-answer.js';
import { findOnPath, serverEnv, serverLaunch } from '../../editors/vscode/src/server-launch.js';

// The VS Code extension's two decisions of its own (VS Code cannot run here): which `restfn lsp` it
// starts, and what it sends and opens for a palette command. The rest is the language server's.

const BUNDLED = '/ext/dist/server/bin/lsp.js';
const packages = (files: Record<string, string>) => (file: string) => files[file];

describe('the VS Code extension', () => {
  test('a workspace cannot choose the program run or the platform the token goes to', () => {
    const manifest = JSON.parse(readFileSync(join('editors', 'vscode', 'package.json'), 'utf8'));
    const properties = manifest.contributes.configuration.properties;
    expect(properties['restfn.path'].scope).toBe('machine');
    expect(properties['restfn.server.url'].scope).toBe('machine');
    expect(manifest.capabilities.untrustedWorkspaces).toMatchObject({
      supported: 'limited',
      restrictedConfigurations: ['restfn.path', 'restfn.server.url'],
    });
    // The setting is its own variable: the environment's RESTFN_SERVER/RESTFN_TOKEN stay as they are.
    const env = serverEnv({ RESTFN_SERVER: 'https://real', RESTFN_TOKEN: 't' }, 'https://other');
    expect(env).toEqual({
      RESTFN_SERVER: 'https://real',
      RESTFN_TOKEN: 't',
      RESTFN_LSP_SERVER: 'https://other',
    });
    expect(serverEnv({ A: '1' }, '')).toEqual({ A: '1' });
  });

  test("starts restfn.path, else the workspace's restfn (found upward), else its bundled server", () => {
    const installed = packages({
      [join('/repo', 'node_modules', 'restfn', 'package.json')]: JSON.stringify({
        name: 'restfn',
        bin: { restfn: 'dist/bin/restfn.js' },
      }),
    });
    expect(
      serverLaunch({ folder: '/repo/solutions/shop', path: '', bundled: BUNDLED, readPackage: installed }),
    ).toEqual({
      kind: 'command',
      command: 'node',
      args: [join('/repo', 'node_modules', 'restfn', 'dist', 'bin', 'restfn.js'), 'lsp', '--stdio'],
      from: join('/repo', 'node_modules', 'restfn', 'dist', 'bin', 'restfn.js'),
    });
    expect(
      serverLaunch({
        folder: '/repo/solutions/shop',
        path: 'tools/restfn',
        bundled: BUNDLED,
        readPackage: installed,
      }),
    ).toMatchObject({
      kind: 'command',
      command: join('/repo/solutions/shop', 'tools/restfn'),
      args: ['lsp', '--stdio'],
    });
    // Not restfn's package (another package named so in a fork, a broken file): not an install.
    for (const text of [JSON.stringify({ name: 'other', bin: 'x.js' }), '{ broken'])
      expect(
        serverLaunch({
          folder: '/repo',
          path: '',
          bundled: BUNDLED,
          readPackage: packages({ [join('/repo', 'node_modules', 'restfn', 'package.json')]: text }),
        }),
      ).toMatchObject({ kind: 'module', module: BUNDLED, args: [] });
    expect(
      serverLaunch({ folder: undefined, path: '', bundled: BUNDLED, readPackage: installed }),
    ).toMatchObject({
      kind: 'module',
      module: BUNDLED,
    });
  });

  test("after the workspace's restfn, a restfn on PATH (npm install -g restfn), before the bundled copy", () => {
    const global = join('/usr', 'local', 'bin', 'restfn');
    const none = packages({});
    expect(
      serverLaunch({ folder: '/shop', path: '', bundled: BUNDLED, readPackage: none, onPath: global }),
    ).toEqual({
      kind: 'command',
      command: global,
      args: ['lsp', '--stdio'],
      from: `PATH (${global})`,
    });
    // The workspace's install still comes first, and restfn.path before both.
    const installed = packages({
      [join('/shop', 'node_modules', 'restfn', 'package.json')]: JSON.stringify({
        name: 'restfn',
        bin: 'b.js',
      }),
    });
    expect(
      serverLaunch({ folder: '/shop', path: '', bundled: BUNDLED, readPackage: installed, onPath: global }),
    ).toMatchObject({
      command: 'node',
      args: [join('/shop', 'node_modules', 'restfn', 'b.js'), 'lsp', '--stdio'],
    });
    expect(
      serverLaunch({
        folder: '/shop',
        path: '/opt/restfn',
        bundled: BUNDLED,
        readPackage: none,
        onPath: global,
      }),
    ).toMatchObject({ command: '/opt/restfn' });
    // npm's Windows shim runs through a shell.
    expect(
      serverLaunch({
        folder: 'C:\\shop',
        path: '',
        bundled: BUNDLED,
        readPackage: none,
        onPath: 'C:\\npm\\restfn.cmd',
      }),
    ).toMatchObject({ command: '"C:\\npm\\restfn.cmd"', shell: true });

    const files = new Set([join('/b', 'restfn'), join('/c', 'restfn')]);
    expect(findOnPath('restfn', ['/a', '', '/b', '/c'].join(':'), (f) => files.has(f), false)).toBe(
      join('/b', 'restfn'),
    );
    expect(findOnPath('restfn', '/a', (f) => files.has(f), false)).toBeUndefined();
    expect(findOnPath('restfn', undefined, () => true, false)).toBeUndefined();
    const windows = new Set([join('C:/npm', 'restfn.cmd')]);
    expect(findOnPath('restfn', 'C:/x;C:/npm', (f) => windows.has(f), true, '.EXE;.CMD')).toBe(
      join('C:/npm', 'restfn.cmd'),
    );
  });

  test("a palette command names the active file; a lens's arguments pass unchanged; an answer's text opens", () => {
    expect(commandArguments([], 'file:///shop/functions/a.platform')).toEqual([
      { uri: 'file:///shop/functions/a.platform' },
    ]);
    expect(commandArguments([], undefined)).toEqual([{}]);
    expect(commandArguments([{ uri: 'file:///b' }, 2], 'file:///a')).toEqual([{ uri: 'file:///b' }, 2]);

    expect(answerDocument('200 OK')).toEqual({ content: '200 OK', language: 'plaintext' });
    expect(answerDocument({ text: '{}', language: 'json' })).toEqual({ content: '{}', language: 'json' });
    expect(answerDocument({ text: 'x' })).toEqual({ content: 'x', language: 'plaintext' });
    // Shown by the server itself (window/showDocument), or nothing to show.
    for (const result of [{ uri: 'file:///tmp/answer.json' }, null, undefined, '', { text: '' }, 3])
      expect(answerDocument(result)).toBeUndefined();
  });
});
