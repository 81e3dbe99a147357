import { RestfnError } from '../errors/restfn-error.js';

/**
 * fast-xml-parser in the browser, loaded ahead of need: the worker's start-up bundle leaves it out
 * (about 80 KB minified with its dependencies, a tenth of what a page loads at start). Only
 * `useLocalCall` functions read XML in the browser (every other call step runs on the platform,
 * which parses the body there), so the client awaits `preloadXml()` when its solution has such a
 * function with `format: xml`, and `fastXmlParser()` stays synchronous as parse-body needs it.
 */
let loaded: typeof import('fast-xml-parser') | undefined;

/** Loads fast-xml-parser's chunk; resolves once `fastXmlParser()` can answer. */
export async function preloadXml(): Promise<void> {
  loaded ??= await import('fast-xml-parser');
}

/** fast-xml-parser, once `preloadXml()` has loaded it (xml-library.ts requires it when first needed). */
export function fastXmlParser(): typeof import('fast-xml-parser') {
  if (!loaded)
    // A bug of the client's, never the app's: a function reading XML ran before its parser was loaded.
    throw new RestfnError(
      'INTERNAL',
      'fast-xml-parser is not loaded: the browser client calls preloadXml() when it opens',
    );
  return loaded;
}
