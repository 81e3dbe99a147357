import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

/**
 * The CLI's commands, each a script V8 can cache compiled (issue 29, start-up). Node 20 caches no
 * compiled code for ES modules (no `module.enableCompileCache`), and compiling the modules a
 * `restfn run` loads was a fifth of its time, resolving them (one by one, from ~30 chunks) another
 * tenth. The build (scripts/build-cli.mjs) writes each command's code as one CommonJS bundle,
 * dist/bin/commands/NAME.cjs; this loads it as Node loads a CommonJS file, through `vm.Script` with
 * V8's code cache beside it (NAME.cjs.cache). The cache is written at the first run of the command
 * (at exit, when the functions that ran are compiled), and again whenever V8 rejects it (another
 * Node version or V8 flags); where dist/ is not writable, commands run without it.
 *
 * Only the build's entry loads this (the commands' `import('./NAME-action.js')` lead here there);
 * restfn's sources and its library import the commands directly.
 */
export interface CommandBundle {
  readonly exports: Record<string, unknown>;
  readonly file: string;
}

let loaded: CommandBundle | undefined;

/** The command bundle that ran, if any: its copies of the error classes are the ones thrown. */
export function loadedCommandBundle(): CommandBundle | undefined {
  return loaded;
}

export function loadCommandBundle(name: string): Record<string, unknown> {
  // The build puts this module in dist/bin/restfn.js or in one of its chunks (dist/bin/chunks/).
  const here = dirname(fileURLToPath(import.meta.url));
  const file = join(basename(here) === 'chunks' ? dirname(here) : here, 'commands', `${name}.cjs`);
  const cacheFile = `${file}.cache`;
  const source = readFileSync(file, 'utf8');
  const cachedData = existsSync(cacheFile) ? readFileSync(cacheFile) : undefined;
  // Node's own wrapper, so that line and column numbers in stack traces are the file's.
  const script = new Script(Module.wrap(source), { filename: file, cachedData });
  if (cachedData === undefined || script.cachedDataRejected) {
    process.once('exit', () => writeCache(cacheFile, script));
  }
  const module = new Module(file);
  module.filename = file;
  module.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(
    dirname(file),
  );
  // In require's cache, as a file `require` loaded would be (tools that list loaded files see it).
  (Module as unknown as { _cache: Record<string, Module> })._cache[file] = module;
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  module.loaded = true;
  loaded = { exports: module.exports as Record<string, unknown>, file };
  return loaded.exports;
}

/** Written beside the bundle, atomically (commands may run at once); a read-only dist/ keeps none. */
function writeCache(cacheFile: string, script: Script): void {
  const temporary = `${cacheFile}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, script.createCachedData());
    renameSync(temporary, cacheFile);
  } catch {
    rmSync(temporary, { force: true });
    // Not writable (an installation owned by another user): the command still ran, only slower.
  }
}
