import { lstatSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
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
    const remove = () => rmSync(made, { recursive: true, force: true });
    process.once('exit', remove);
    // Killed (an editor stopping it): removed, then the exit the signal would have made.
    for (const [signal, code] of [
      ['SIGTERM', 143],
      ['SIGINT', 130],
    ] as const)
      process.once(signal, () => {
        remove();
        process.exit(code);
      });
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

/** mkdtemp's name of an answer folder: only those are ever removed by `removeStaleAnswers`. */
const ANSWER_FOLDER = /^restfn-lsp-[A-Za-z0-9]{6}$/;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * At startup: this user's answer folders left by a server that was killed without exiting,
 * older than a day (another server's may be in use), removed. Only folders named as this code
 * names them and owned by this user; nothing that fails to be read or removed is an error.
 */
export function removeStaleAnswers(now: number = Date.now(), temp: string = tmpdir()): void {
  const uid = process.getuid?.();
  let names: string[];
  try {
    names = readdirSync(temp);
  } catch {
    return;
  }
  for (const name of names) {
    if (!ANSWER_FOLDER.test(name)) continue;
    try {
      const path = join(temp, name);
      const stat = lstatSync(path);
      if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid)) continue;
      if (now - stat.mtimeMs < DAY_MS) continue;
      rmSync(path, { recursive: true, force: true });
    } catch {
      // Gone meanwhile, or not ours to remove.
    }
  }
}
