import type { Solution } from '../../definition/source-file.js';
import { preloadXml } from '../../http/xml-library.js';

/**
 * Whether a function of the solution parses an XML body in this worker: only `useLocalCall`
 * functions make their call here (the platform runs every other call step and answers with the
 * parsed output), and only `format: xml` parses XML.
 */
export function readsXmlHere(solution: Solution): boolean {
  for (const file of solution.functions.values()) {
    const definition = file.definition as { useLocalCall?: boolean; format?: string } | undefined;
    if (definition?.useLocalCall === true && definition.format === 'xml') return true;
  }
  return false;
}

/** Loads fast-xml-parser's chunk when the solution will need it (it is not in the start-up bundle). */
export async function preloadXmlFor(solution: Solution): Promise<void> {
  if (readsXmlHere(solution)) await preloadXml();
}
