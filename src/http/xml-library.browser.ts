import * as xml from 'fast-xml-parser';

/** fast-xml-parser, imported: the browser build bundles it (xml-library.ts requires it when first needed). */
export function fastXmlParser(): typeof import('fast-xml-parser') {
  return xml;
}
