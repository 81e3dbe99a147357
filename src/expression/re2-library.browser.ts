import * as re2js from 're2js';

/** re2js, imported: the browser build bundles it (re2-library.ts requires it when first needed). */
export function re2Library(): typeof import('re2js') {
  return re2js;
}
