// restfn's changes to its dependencies' code (patches/<package>+<version>.patch, unified diffs as
// `git diff` writes them), applied when restfn is built, to the copies that go into dist/: the CLI
// bundle and the library's copy of JSONata. node_modules is never changed, so installing restfn
// runs no script of restfn's, and what a registry user runs is what the checkout's build made.
// A patch that no longer applies (the package moved on) fails the build, naming the hunk.
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const require = createRequire(join(root, 'package.json'));

/** Every patched file: its real absolute path (symlinks resolved), and the patched text. */
export function patchedFiles() {
  const files = new Map();
  for (const name of readdirSync(join(root, 'patches')).filter((n) => n.endsWith('.patch'))) {
    const [, pkg, version] = /^(.+)\+([^+]+)\.patch$/.exec(name) ?? [];
    const installed = JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), 'utf8')).version;
    if (installed !== version)
      throw new Error(
        `patches/${name} is for ${pkg} ${version}, but ${installed} is installed: update the patch`,
      );
    for (const { file, hunks } of parse(readFileSync(join(root, 'patches', name), 'utf8'))) {
      // The real path, as a bundler reports a module behind a symlinked node_modules (pnpm).
      const path = realpathSync(join(root, file));
      files.set(path, apply(readFileSync(path, 'utf8'), hunks, `patches/${name}`));
    }
  }
  return files;
}

/** The files of a unified diff, each with its hunks as the lines before and after. */
function parse(diff) {
  const files = [];
  let hunk;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++ b/')) files.push({ file: line.slice(6), hunks: [] });
    else if (line.startsWith('@@')) {
      hunk = { before: [], after: [] };
      files.at(-1).hunks.push(hunk);
    } else if (hunk && /^[ +-]/.test(line) && !line.startsWith('--- ')) {
      if (line[0] !== '+') hunk.before.push(line.slice(1));
      if (line[0] !== '-') hunk.after.push(line.slice(1));
    } else if (line.startsWith('diff ')) hunk = undefined;
  }
  return files;
}

function apply(text, hunks, patch) {
  let from = 0;
  for (const [i, { before, after }] of hunks.entries()) {
    const old = before.join('\n');
    const at = text.indexOf(old, from);
    if (at < 0) throw new Error(`${patch}: hunk ${i + 1} does not apply (its lines are not in the file)`);
    const replacement = after.join('\n');
    text = text.slice(0, at) + replacement + text.slice(at + old.length);
    from = at + replacement.length;
  }
  return text;
}
