// The esbuild plugin of the browser build (build-browser.mjs; the browser tests' pages use it too):
// restfn's modules with Node-only code have a sibling `X.browser.ts` with the same exports, used
// in the browser instead of `X.ts`.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

/** `./x.js` from restfn's sources: `./x.browser.ts` where that sibling exists. */
export const browserSiblings = {
  name: 'browser-siblings',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\/.*\.js$/ }, (args) => {
      if (!args.importer.startsWith(join(root, 'src'))) return undefined;
      const sibling = resolve(dirname(args.importer), args.path.replace(/\.js$/, '.browser.ts'));
      return existsSync(sibling) ? { path: sibling } : undefined;
    });
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

/** Node's `Buffer` for the browser build (esbuild `inject`). */
export const BUFFER_SHIM = join(root, 'src', 'browser', 'shims', 'buffer.ts');
