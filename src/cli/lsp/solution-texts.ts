import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { findDefinitionFiles } from '../../definition/definition-files.js';
import { KIND_FOLDERS, SCRIPTS_FOLDER, SOLUTION_FILE } from '../../definition/solution.js';

/**
 * The texts of a solution's files by absolute path, read once when the server starts (the
 * language service does no I/O): solution.yaml, the definition files, the expression scripts.
 * A file that cannot be read is left out (`restfn validate` reports it).
 */
export function readSolutionTexts(root: string): Map<string, string> {
  const paths: string[] = [];
  if (existsSync(join(root, SOLUTION_FILE))) paths.push(join(root, SOLUTION_FILE));
  for (const folder of Object.values(KIND_FOLDERS))
    paths.push(...findDefinitionFiles(join(root, folder)).files);
  const scripts = join(root, SCRIPTS_FOLDER);
  if (isDirectory(scripts))
    for (const entry of readdirSync(scripts)) if (entry.endsWith('.js')) paths.push(join(scripts, entry));
  const texts = new Map<string, string>();
  for (const path of paths) {
    const text = readText(path);
    if (text !== undefined) texts.set(path, text);
  }
  return texts;
}

export function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
