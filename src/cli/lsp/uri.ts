import { fileURLToPath, pathToFileURL } from 'node:url';

/** A document's path from its LSP uri (a `file:` url; anything else is kept as it is). */
export function pathOf(uri: string): string {
  return uri.startsWith('file:') ? fileURLToPath(uri) : uri;
}

/** `pathOf`, or undefined for a uri that is no local path (`file://host/x`, a malformed url): a client's bad input. */
export function pathOrUndefined(uri: string): string | undefined {
  try {
    return pathOf(uri);
  } catch {
    return undefined;
  }
}

/** The LSP uri of a file's absolute path. */
export function uriOf(path: string): string {
  return pathToFileURL(path).href;
}
