// The esbuild plugin of the browser build (build-browser.mjs; the browser tests' pages use it too):
// restfn's modules with Node-only code have a sibling `X.browser.ts` with the same exports, used
// in the browser instead of `X.ts`.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

/**
 * `./x.js` from restfn's sources: `./x.browser.ts` where that sibling exists, except from the sibling
 * itself: a sibling may load the module it stands in for lazily (call.browser.ts: `import('./call.js')`
 * makes the call step a chunk of its own).
 */
export const browserSiblings = {
  name: 'browser-siblings',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\/.*\.js$/ }, (args) => {
      if (!args.importer.startsWith(join(root, 'src'))) return undefined;
      const sibling = resolve(dirname(args.importer), args.path.replace(/\.js$/, '.browser.ts'));
      return existsSync(sibling) && sibling !== args.importer ? { path: sibling } : undefined;
    });
    // The error codes' and validation rules' one-line meanings are for the reference docs
    // (reference-doc.ts), which the worker never writes: left out, the tables keep every code,
    // family, HTTP status and severity (a tenth of the worker's own code, gzipped).
    b.onLoad({ filter: /[/\\]src[/\\](errors[/\\]codes|definition[/\\]rule-codes)\.ts$/ }, (args) => ({
      contents: withoutDocText(readFileSync(args.path, 'utf8')),
      loader: 'ts',
    }));
    // date-fns's prebuilt bundle as text, its own chunk (scripts/date-fns-source.browser.ts).
    b.onResolve({ filter: /^restfn:date-fns-text$/ }, () => ({
      path: join(root, 'node_modules', 'date-fns', 'cdn.min.js'),
      namespace: 'date-fns-text',
    }));
    b.onLoad({ filter: /.*/, namespace: 'date-fns-text' }, (args) => ({
      contents: readFileSync(args.path, 'utf8'),
      loader: 'text',
    }));
  },
};

/** A string literal in restfn's sources: '...', "..." or `...` (no interpolation in these tables). */
const STRING = /'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/.source;
const MEANING = new RegExp(`(\\bcode\\(\\s*'\\w+',\\s*)(?:${STRING})`, 'g');
const SUMMARY = new RegExp(`(\\bsummary:\\s*)(?:${STRING})`, 'g');

/** codes.ts's `code('family', 'meaning')` and rule-codes.ts's `summary: '...'` with empty texts. */
function withoutDocText(source) {
  return source.replace(MEANING, "$1''").replace(SUMMARY, "$1''");
}

/** Node's `Buffer` for the browser build (esbuild `inject`). */
export const BUFFER_SHIM = join(root, 'src', 'browser', 'shims', 'buffer.ts');
