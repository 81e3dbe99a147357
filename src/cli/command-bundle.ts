import { accessSync, constants, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
 * Node version or V8 flags, a failed checksum: main.ts turns V8's check on) or it was made from
 * another bundle; where dist/ is not writable, commands run without it.
 *
 * Only the build's entry loads this (the commands' `import('./NAME-action.js')` lead here there);
 * restfn's sources and its library import the commands directly.
 */
let loaded: Record<string, unknown> | undefined;

/** The exports of the command bundle that ran, if any: its copies of the error classes are thrown. */
export function loadedCommandBundle(): Record<string, unknown> | undefined {
  return loaded;
}

export function loadCommandBundle(name: string): Record<string, unknown> {
  // The build puts this module in dist/bin/restfn.js or in one of its chunks (dist/bin/chunks/).
  const here = dirname(fileURLToPath(import.meta.url));
  const file = join(basename(here) === 'chunks' ? dirname(here) : here, 'commands', `${name}.cjs`);
  const cacheFile = `${file}.cache`;
  const source = readFileSync(file, 'utf8');
  // The cache names the bundle it was made from: V8 itself compares only the source's length, and
  // a bundle replaced by one of the same length would otherwise run the old one's code.
  const { size, mtimeMs } = statSync(file);
  const identity = Buffer.from(`restfn code cache ${size} ${mtimeMs}\n`);
  const cachedData = readCache(cacheFile, identity);
  // Node's own wrapper, so that line and column numbers in stack traces are the file's.
  const script = new Script(Module.wrap(source), { filename: file, cachedData });
  // Made only where it can be kept: making it costs more than compiling did.
  if ((cachedData === undefined || script.cachedDataRejected) && writable(dirname(file))) {
    process.once('exit', () => writeCache(cacheFile, identity, script));
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
  loaded = module.exports as Record<string, unknown>;
  return loaded;
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The cache's bytes for V8, when the file is this bundle's; any failure to read it is no cache. */
function readCache(cacheFile: string, identity: Buffer): Buffer | undefined {
  try {
    const bytes = readFileSync(cacheFile);
    if (bytes.length > identity.length && bytes.subarray(0, identity.length).equals(identity))
      return bytes.subarray(identity.length);
  } catch {
    // None yet, or not readable (written by another user): compiled without.
  }
  return undefined;
}

/** Written beside the bundle, atomically (commands may run at once); a read-only dist/ keeps none. */
function writeCache(cacheFile: string, identity: Buffer, script: Script): void {
  const temporary = `${cacheFile}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    writeFileSync(temporary, Buffer.concat([identity, script.createCachedData()]));
    renameSync(temporary, cacheFile);
  } catch {
    rmSync(temporary, { force: true });
    // Not writable (an installation owned by another user): the command still ran, only slower.
  }
}
