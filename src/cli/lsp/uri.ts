import { fileURLToPath, pathToFileURL } from 'node:url';

/** A document's path from its LSP uri (a `file:` url; anything else is kept as it is). */
export function pathOf(uri: string): string {
  return uri.startsWith('file:') ? fileURLToPath(uri) : uri;
}

/** The LSP uri of a file's absolute path. */
export function uriOf(path: string): string {
  return pathToFileURL(path).href;
}
