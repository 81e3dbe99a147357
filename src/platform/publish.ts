import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { compareDiagnostics, type Diagnostic } from '../definition/diagnostic.js';
import { loadSolution } from '../definition/solution.js';
import { validateSolution } from '../definition/validate.js';
import { type Ceilings, cappedFindings } from './ceilings.js';
import { PlatformError } from './errors.js';
import { asStoreFull } from './store/full.js';

/** Solution names on the platform: they are URL segments and folder names. */
export const SOLUTION_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The files a solution may hold, by path inside it (what `restfn publish` sends). */
const ALLOWED =
  /^(solution\.yaml|(functions|datasources|actions)\/([A-Za-z0-9._-]+\/)*[A-Za-z0-9._-]+\.platform|scripts\/expressions\/[A-Za-z0-9._-]+\.js)$/;

export const UPLOAD_LIMITS = { files: 5000, fileBytes: 1024 * 1024 } as const;

/**
 * Checks an upload's shape: known kinds of paths only (no `..`, no absolute or hidden paths), text
 * files within the limits. Throws `REQUEST_INVALID` naming the first bad path.
 */
export function checkUpload(files: unknown): Record<string, string> {
  if (files === null || typeof files !== 'object' || Array.isArray(files)) {
    throw new PlatformError(
      'REQUEST_INVALID',
      'the body must be {"files": {"functions/x.platform": "<text>", ...}}',
    );
  }
  const entries = Object.entries(files as Record<string, unknown>);
  if (entries.length === 0) throw new PlatformError('REQUEST_INVALID', 'the upload holds no files');
  if (entries.length > UPLOAD_LIMITS.files) {
    throw new PlatformError(
      'REQUEST_TOO_LARGE',
      `the upload holds ${entries.length} files; at most ${UPLOAD_LIMITS.files}`,
    );
  }
  for (const [path, text] of entries) {
    if (!ALLOWED.test(path) || path.split('/').some((part) => part.startsWith('.'))) {
      throw new PlatformError(
        'REQUEST_INVALID',
        `'${path}' is not a file a solution holds: solution.yaml, functions/, datasources/ or actions/ *.platform files, scripts/expressions/*.js`,
      );
    }
    if (typeof text !== 'string') throw new PlatformError('REQUEST_INVALID', `'${path}' must be text`);
    if (Buffer.byteLength(text) > UPLOAD_LIMITS.fileBytes) {
      throw new PlatformError('REQUEST_TOO_LARGE', `'${path}' is over ${UPLOAD_LIMITS.fileBytes} bytes`);
    }
  }
  // A file that is also another file's folder cannot be written (a folder cannot be both).
  const paths = new Set(entries.map(([path]) => path));
  for (const [path] of entries) {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join('/');
      if (paths.has(folder)) {
        throw new PlatformError(
          'REQUEST_INVALID',
          `'${folder}' is a file and the folder of '${path}': rename one of them`,
        );
      }
    }
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

/** SHA-256 over the files in path order: the same solution gives the same digest. */
export function digestOf(files: Readonly<Record<string, string>>): string {
  const hash = createHash('sha256');
  for (const path of Object.keys(files).sort())
    hash.update(path).update('\0').update(files[path]!).update('\0');
  return hash.digest('hex');
}

/**
 * Validates an upload with the same rules as `restfn validate`, in a scratch folder of the data
 * folder: the findings (paths relative to the solution), and whether there are errors.
 */
export async function validateUpload(
  dataDir: string,
  name: string,
  files: Readonly<Record<string, string>>,
  ceilings: Ceilings,
): Promise<{ diagnostics: readonly Diagnostic[]; errors: number; warnings: number }> {
  const scratch = join(dataDir, 'tmp', randomUUID());
  const root = join(scratch, name);
  try {
    try {
      writeFiles(root, files);
    } catch (error) {
      // A full disk answers STORE_FULL from here too (this runs in a worker: an uncoded error
      // would cross back as INTERNAL).
      throw asStoreFull(error);
    }
    const solution = loadSolution(root, { displayBase: root });
    // `restfn publish` uploads under the name solution.yaml gives; another name would make
    // `@ctx.solution.name` and the device's `--server` calls disagree with the platform's.
    const declared = solution.settings?.definition?.name;
    if (declared !== undefined && declared !== name) {
      throw new PlatformError(
        'REQUEST_INVALID',
        `solution.yaml names the solution '${declared}', not '${name}': publish it under its own name`,
      );
    }
    const validated = await validateSolution(solution);
    const capped = cappedFindings(solution, ceilings);
    return {
      diagnostics: [...validated.diagnostics, ...capped].sort(compareDiagnostics),
      errors: validated.errors,
      warnings: validated.warnings + capped.length,
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The folder a published version lives in, written once from the stored files (the database holds
 * them; the folder is a cache that a restart or another process rebuilds). Its base name is the
 * solution's name, as a solution folder's is.
 */
export function materialise(
  dataDir: string,
  name: string,
  version: number,
  files: Readonly<Record<string, string>>,
): string {
  const root = versionRoot(dataDir, name, version);
  if (existsSync(join(root, '.complete'))) return root;
  // Written beside, then renamed into place: a reader never sees half a solution.
  const staging = join(dataDir, 'tmp', randomUUID());
  try {
    writeFiles(staging, files);
    writeFileSync(join(staging, '.complete'), '');
    mkdirSync(dirname(root), { recursive: true });
    renameSync(staging, root);
  } catch (error) {
    // Half a folder (a full disk) is not left behind.
    rmSync(staging, { recursive: true, force: true });
    // Another request (or process) put the same version in place first: theirs is identical.
    if (!existsSync(join(root, '.complete'))) throw asStoreFull(error);
  }
  return root;
}

/** Where `materialise` writes a version's files: a folder named for the solution, as a solution folder is. */
export function versionRoot(dataDir: string, name: string, version: number): string {
  return join(dataDir, 'versions', name, String(version), name);
}

/**
 * Where a worker keeps the version's prepared form (prepared-solution.ts), beside its files (not
 * among them: it is no file of the solution) and removed with them.
 */
export function preparedPath(dataDir: string, name: string, version: number): string {
  return join(dataDir, 'versions', name, String(version), 'prepared.json');
}

/** The folder `materialise` writes a version in, with everything in it. */
export function removeVersionFolder(dataDir: string, name: string, version: number): void {
  rmSync(join(dataDir, 'versions', name, String(version)), { recursive: true, force: true });
}

/** The version folders of `<data>/versions/`, by solution. */
export function versionFolders(dataDir: string): Map<string, number[]> {
  const found = new Map<string, number[]>();
  const base = join(dataDir, 'versions');
  for (const name of existsSync(base) ? readdirSync(base) : []) {
    if (!SOLUTION_NAME.test(name)) continue;
    const numbers = readdirSync(join(base, name))
      .filter((v) => /^[1-9]\d*$/.test(v))
      .map(Number);
    found.set(name, numbers);
  }
  return found;
}

/**
 * Removes the scratch folders in `<data>/tmp` (a publish's validation, a version being written
 * out) that no live publish uses: all of them when this process holds the data folder (SQLite's
 * `serve.lock`: whatever is there was left by a process that died), else those older than
 * `olderThanMs` (instances on PostgreSQL given the same `--data` would share it, and a live
 * scratch folder lasts no longer than a validation). How many were removed.
 */
export function sweepScratch(dataDir: string, olderThanMs = 0, nowMs = Date.now()): number {
  const base = join(dataDir, 'tmp');
  let removed = 0;
  for (const entry of existsSync(base) ? readdirSync(base) : []) {
    const path = join(base, entry);
    try {
      if (olderThanMs > 0 && nowMs - statSync(path).mtimeMs < olderThanMs) continue;
      rmSync(path, { recursive: true, force: true });
      removed++;
    } catch {
      // Gone meanwhile (another instance swept it): nothing to do.
    }
  }
  return removed;
}

function writeFiles(root: string, files: Readonly<Record<string, string>>): void {
  for (const [path, text] of Object.entries(files)) {
    const target = join(root, ...path.split('/'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text, { flag: 'wx' });
  }
  mkdirSync(root, { recursive: true });
}
