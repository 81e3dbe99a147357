import { isAscii } from 'node:buffer';
import {
  accessSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire, Module } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

/**
 * The CLI's commands, each a script V8 can cache compiled (issue 29, start-up). Node 20 caches no
 * compiled code for ES modules (no `module.enableCompileCache`), and compiling the modules a
 * `restfn run` loads was a fifth of its time, resolving them (one by one, from ~30 chunks) another
 * tenth. The build (scripts/build-cli.mjs) writes the commands' code as CommonJS bundles,
 * dist/bin/commands/NAME.cjs (some shared by several commands); this loads it as Node loads a CommonJS file, through `vm.Script` with
 * V8's code cache beside it (NAME.cjs.cache). The cache is written at the first run of the command
 * (at exit, when the functions that ran are compiled), and again whenever V8 rejects it (another
 * Node version or V8 flags, a failed checksum: main.ts turns V8's check on) or it was made from
 * another bundle. Where dist/ is not writable (another user's global installation), the cache is the
 * user's own, in $XDG_CACHE_HOME/restfn (~/.cache/restfn), unless one beside the bundle is taken.
 *
 * Only the build's entry loads this (the commands' `import('./NAME-action.js')` lead here there);
 * restfn's sources and its library import the commands directly.
 */
let loaded: Record<string, unknown> | undefined;

/** The exports of the command bundle that ran, if any: its copies of the error classes are thrown. */
export function loadedCommandBundle(): Record<string, unknown> | undefined {
  return loaded;
}

export function loadCommandBundle(name: string, command = name): Record<string, unknown> {
  // The build puts this module in dist/bin/restfn.js or in one of its chunks (dist/bin/chunks/).
  const here = dirname(fileURLToPath(import.meta.url));
  const file = join(basename(here) === 'chunks' ? dirname(here) : here, 'commands', `${name}.cjs`);
  // A bundle several commands share has a cache per command (COMMAND.cjs.cache): a cache holds
  // the functions that had run when it was made, and is made again only when V8 rejects it, so one
  // shared by all would hold the first command's functions only.
  const beside = join(dirname(file), `${command}.cjs.cache`);
  const keptBeside = writable(dirname(file));
  // esbuild writes the bundles in ASCII (it escapes the rest): read as Latin-1, the text is a plain
  // copy of the bytes, where UTF-8 has each of a megabyte of them decoded (issue 41, start-up).
  const bytes = readFileSync(file);
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  // The cache names the bundle it was made from: V8 itself compares only the source's length, and
  // a bundle replaced by one of the same length would otherwise run the old one's code.
  const { size, mtimeMs } = statSync(file);
  const identity = Buffer.from(`restfn code cache ${size} ${mtimeMs}\n`);
  const own = keptBeside ? undefined : userCacheFile(beside);
  let cachedData = readCache(beside, identity);
  if (cachedData === undefined && own) cachedData = readCache(own, identity, true);
  // Node's own wrapper, so that line and column numbers in stack traces are the file's.
  const script = new Script(Module.wrap(source), { filename: file, cachedData });
  // Made only where it can be kept: making it costs more than compiling did.
  const target = keptBeside ? beside : own;
  if ((cachedData === undefined || script.cachedDataRejected) && target) {
    process.once('exit', () => writeCache(target, identity, script, target === own));
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

/**
 * Where a user keeps the cache of a bundle they may not write beside: a folder of their own (mode
 * 0700) per installation, named by a hash of its path. No home (or no user ids), no cache.
 */
function userCacheFile(file: string): string | undefined {
  if (typeof process.getuid !== 'function') return undefined;
  const xdg = process.env.XDG_CACHE_HOME;
  let base: string;
  try {
    base = xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.cache');
  } catch {
    return undefined;
  }
  return join(base, 'restfn', 'code-cache', fnv1a(dirname(file)), basename(file));
}

/** FNV-1a of a text, as 8 hex digits: enough to tell installations apart (the cache's header checks the bundle). */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/**
 * Whether a file or folder (its stats) is the user's own and only theirs to change: not a link,
 * owned by this user, not writable by group or others. A cache is code this process runs: in the user's cache folder (which
 * `XDG_CACHE_HOME` may put anywhere, /tmp included) one planted by another user must not be.
 */
function ownedByUser(stats: { uid: number; mode: number; isSymbolicLink(): boolean }): boolean {
  return !stats.isSymbolicLink() && stats.uid === process.getuid?.() && (stats.mode & 0o022) === 0;
}

/**
 * The cache's bytes for V8, when the file is this bundle's; any failure to read it is no cache. In
 * the user's folder (`own`), only a file and folder of the user's own count (opened without
 * following a link, checked on what was opened).
 */
function readCache(cacheFile: string, identity: Buffer, own = false): Buffer | undefined {
  try {
    let bytes: Buffer;
    if (own) {
      if (!ownedByUser(lstatSync(dirname(cacheFile)))) return undefined;
      const fd = openSync(cacheFile, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        if (!ownedByUser(fstatSync(fd))) return undefined;
        bytes = readFileSync(fd);
      } finally {
        closeSync(fd);
      }
    } else bytes = readFileSync(cacheFile);
    if (bytes.length > identity.length && bytes.subarray(0, identity.length).equals(identity))
      return bytes.subarray(identity.length);
  } catch {
    // None yet, or not readable (written by another user): compiled without.
  }
  return undefined;
}

/**
 * Written atomically (commands may run at once); a failure leaves the command as it ran. In the
 * user's folder, only into a folder of their own, as a new file (never through a link).
 */
function writeCache(cacheFile: string, identity: Buffer, script: Script, own = false): void {
  const temporary = `${cacheFile}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    if (own) {
      mkdirSync(dirname(cacheFile), { recursive: true, mode: 0o700 });
      if (!ownedByUser(lstatSync(dirname(cacheFile)))) return;
    }
    writeFileSync(temporary, Buffer.concat([identity, script.createCachedData()]), {
      flag: 'wx',
      ...(own ? { mode: 0o600 } : {}),
    });
    renameSync(temporary, cacheFile);
  } catch {
    rmSync(temporary, { force: true });
    // Not writable after all (a full disk, a home that is not the user's): it ran, only slower.
  }
}
