import { createRequire } from 'node:module';

/** fast-xml-parser's one-file CommonJS build, required at the first XML body (synchronously). */
export function fastXmlParser(): typeof import('fast-xml-parser') {
  return createRequire(import.meta.url)('fast-xml-parser') as typeof import('fast-xml-parser');
}

/** Nothing to do in Node (fastXmlParser requires it synchronously); the browser's sibling loads it here. */
export async function preloadXml(): Promise<void> {}
