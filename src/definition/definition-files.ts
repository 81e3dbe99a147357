import { type Dirent, readdirSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { EXTENSION } from './file-kinds.js';

export { EXTENSION };

/** A path under a kind folder that was not read, and why. */
export interface SkippedPath {
  readonly path: string;
  /** `SYMLINK_LOOP`: a link back into itself or to a folder it is in (nothing is lost by skipping it). */
  readonly code: 'SYMLINK_LOOP' | 'FILE_UNREADABLE';
  readonly reason: string;
}

/**
 * Every `*.platform` file below `dir`, in a stable order, and what could not be read. Symbolic links
 * are followed (a shared folder linked in works), except a link to a folder that contains it,
 * which would repeat forever; links that loop or lead nowhere are reported instead of ending the
 * load with an engine error, so the rest of the solution still loads. Iterative, no recursion.
 */
export function findDefinitionFiles(dir: string): { files: string[]; skipped: SkippedPath[] } {
  const files: string[] = [];
  const skipped: SkippedPath[] = [];
  const root = realFolder(dir);
  if (!root) return { files, skipped };
  // Each folder with the real paths of the folders it is in (itself included).
  const stack: Array<{ path: string; within: ReadonlySet<string> }> = [
    { path: dir, within: new Set([root]) },
  ];
  while (stack.length > 0) {
    const { path: folder, within } = stack.pop()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch (error) {
      skipped.push({ path: folder, code: 'FILE_UNREADABLE', reason: describe(error) });
      continue;
    }
    for (const entry of entries) {
      const path = join(folder, entry.name);
      const isDefinition = entry.name.endsWith(EXTENSION);
      if (entry.isFile()) {
        if (isDefinition) files.push(path);
        continue;
      }
      if (!entry.isDirectory() && !entry.isSymbolicLink()) continue;
      let target: { isDirectory(): boolean; isFile(): boolean };
      let real: string;
      try {
        target = statSync(path);
        real = realpathSync(path);
      } catch (error) {
        // A link that leads nowhere matters only where a definition was meant to be.
        const code = (error as { code?: string }).code === 'ELOOP' ? 'SYMLINK_LOOP' : 'FILE_UNREADABLE';
        if (isDefinition || code === 'SYMLINK_LOOP') skipped.push({ path, code, reason: describe(error) });
        continue;
      }
      if (target.isDirectory()) {
        if (within.has(real)) {
          skipped.push({ path, code: 'SYMLINK_LOOP', reason: `it leads back to ${real}, a folder it is in` });
        } else {
          stack.push({ path, within: new Set([...within, real]) });
        }
      } else if (target.isFile() && isDefinition) {
        files.push(path);
      }
    }
  }
  return { files: files.sort(), skipped: skipped.sort((a, b) => a.path.localeCompare(b.path)) };
}

function realFolder(dir: string): string | undefined {
  try {
    return statSync(dir).isDirectory() ? realpathSync(dir) : undefined;
  } catch {
    return undefined;
  }
}

/** What went wrong, without the engine's wording: the system code and a plain explanation. */
export function describe(error: unknown): string {
  const code = (error as { code?: string }).code;
  switch (code) {
    case 'ELOOP':
      return 'a symbolic link that leads back to itself (ELOOP)';
    case 'ENOENT':
      return 'a symbolic link to something that does not exist (ENOENT)';
    case 'EACCES':
    case 'EPERM':
      return `no permission to read it (${code})`;
    case 'EISDIR':
      return 'it is a folder (EISDIR)';
    default:
      return code ? `it cannot be read (${code})` : 'it cannot be read';
  }
}
