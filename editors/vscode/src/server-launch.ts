import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';

/** How the extension starts `restfn lsp`: a program with its arguments, or a script VS Code's own Node runs. */
export type ServerLaunch =
  | {
      readonly kind: 'command';
      readonly command: string;
      readonly args: string[];
      readonly from: string;
      /** A Windows .cmd shim (npm's global install): only a shell runs it. */
      readonly shell?: boolean;
    }
  | { readonly kind: 'module'; readonly module: string; readonly args: string[]; readonly from: string };

export interface LaunchInputs {
  /** The workspace folder, if one is open. */
  readonly folder: string | undefined;
  /** The `restfn.path` setting ('' when unset). */
  readonly path: string;
  /** The server inside the .vsix (dist/server/bin/lsp.js). */
  readonly bundled: string;
  /** package.json's text at this path, or undefined when there is none. */
  readonly readPackage: (file: string) => string | undefined;
  /** A `restfn` executable on PATH (`npm install -g restfn`), if any (see `findOnPath`). */
  readonly onPath?: string | undefined;
}

const LSP_ARGS = ['lsp', '--stdio'];

/**
 * Which `restfn lsp` to start, in order: the `restfn.path` setting; the restfn the workspace
 * installed (`node_modules/restfn` at or above the folder, as Node finds packages), so the editor
 * checks with the same version as the author's `restfn validate`; else a `restfn` on PATH (a global
 * install); else the copy in the .vsix. The workspace's restfn runs under `node` from PATH, as its
 * own bin does (it needs Node 20.19; VS Code's bundled Node may be older); the bundled copy runs in
 * VS Code's Node and needs none, but has no SQLite (a native module, built for Node, not for VS
 * Code's Electron): it checks, completes and navigates, and Run, Sync and stored credentials answer
 * SQLITE_UNAVAILABLE, which says to install restfn.
 */
export function serverLaunch(inputs: LaunchInputs): ServerLaunch {
  const setting = inputs.path.trim();
  if (setting) {
    const command = isAbsolute(setting) || !inputs.folder ? setting : resolve(inputs.folder, setting);
    return { kind: 'command', command, args: LSP_ARGS, from: `restfn.path (${command})` };
  }
  const installed = inputs.folder ? workspaceBin(inputs.folder, inputs.readPackage) : undefined;
  if (installed) return { kind: 'command', command: 'node', args: [installed, ...LSP_ARGS], from: installed };
  if (inputs.onPath) {
    const shell = /\.cmd$/i.test(inputs.onPath);
    return {
      kind: 'command',
      command: shell ? `"${inputs.onPath}"` : inputs.onPath,
      args: LSP_ARGS,
      from: `PATH (${inputs.onPath})`,
      ...(shell ? { shell } : {}),
    };
  }
  // TransportKind.stdio adds `--stdio` itself.
  return {
    kind: 'module',
    module: inputs.bundled,
    args: [],
    from: `the extension's copy (${inputs.bundled})`,
  };
}

/** node_modules/restfn's `restfn` bin at or above `folder`, if installed. */
function workspaceBin(folder: string, readPackage: LaunchInputs['readPackage']): string | undefined {
  for (let dir = resolve(folder); ; dir = dirname(dir)) {
    const pkgDir = join(dir, 'node_modules', 'restfn');
    const bin = binOf(readPackage(join(pkgDir, 'package.json')));
    if (bin) return join(pkgDir, bin);
    if (dirname(dir) === dir) return undefined;
  }
}

function binOf(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    const pkg = JSON.parse(text) as { name?: unknown; bin?: unknown };
    if (pkg.name !== 'restfn') return undefined;
    if (typeof pkg.bin === 'string') return pkg.bin;
    const bin = (pkg.bin as Record<string, unknown> | undefined)?.restfn;
    return typeof bin === 'string' ? bin : undefined;
  } catch {
    // A broken package.json is no install to run.
    return undefined;
  }
}

/**
 * `name` as the shell finds it on `path` (PATH's value): the first folder holding it, on Windows
 * with one of PATHEXT's endings (npm's global install writes restfn.cmd there).
 */
export function findOnPath(
  name: string,
  path: string | undefined,
  isFile: (file: string) => boolean,
  windows = process.platform === 'win32',
  pathExt = '.COM;.EXE;.BAT;.CMD',
): string | undefined {
  const endings = windows ? pathExt.split(';').filter(Boolean) : [''];
  for (const dir of (path ?? '').split(windows ? ';' : delimiter)) {
    if (!dir) continue;
    for (const ending of endings) {
      const file = join(dir, name + ending.toLowerCase());
      if (isFile(file)) return file;
    }
  }
  return undefined;
}

/**
 * The server's environment: VS Code's, with the `restfn.server.url` setting as `RESTFN_LSP_SERVER`
 * (not `RESTFN_SERVER`: the server sends `RESTFN_TOKEN` only to `RESTFN_SERVER`'s platform, and to
 * the setting's only that platform's stored login, or `RESTFN_TOKEN` when both name the same).
 */
export function serverEnv(env: NodeJS.ProcessEnv, url: string): NodeJS.ProcessEnv {
  return { ...env, ...(url ? { RESTFN_LSP_SERVER: url } : {}) };
}
