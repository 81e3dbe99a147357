import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Connection } from 'vscode-languageserver/node';
import { uriOf } from './uri.js';

let folder: string | undefined;

/**
 * A command's answer as a document the editor opens (docs/decisions.md): JSON in a file of a
 * folder of this server's own under the OS temp folder (made private by mkdtemp, removed when the
 * server exits), one file per command and name, rewritten by the next run, and opened with
 * `window/showDocument`. An editor without it (the request fails) still has the answer as the
 * command's result and its uri. Returns the uri.
 */
export async function showAnswer(connection: Connection, name: string, answer: unknown): Promise<string> {
  if (!folder) {
    const made = mkdtempSync(join(tmpdir(), 'restfn-lsp-'));
    folder = made;
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
  }
  const path = join(folder, `${name.replace(/[^\w.-]+/g, '_')}.json`);
  writeFileSync(path, `${JSON.stringify(answer, null, 2)}\n`, { mode: 0o600 });
  const uri = uriOf(path);
  try {
    await connection.window.showDocument({ uri, takeFocus: false });
  } catch {
    // The editor does not open documents on request (LSP 3.16's showDocument): the result holds it.
  }
  return uri;
}
