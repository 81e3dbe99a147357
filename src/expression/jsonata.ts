import { createRequire } from 'node:module';
import type Jsonata from 'jsonata';

/**
 * JSONata, required rather than imported: it is one CommonJS file of 200 KB, and an `import` of it
 * from an ES module first has Node scan the whole file for its export names (cjs-module-lexer),
 * which cost more than loading it (issue 11: about 90 ms of CPU against 20 ms, on every command
 * that validates or runs a function).
 */
export const jsonata = createRequire(import.meta.url)('jsonata') as typeof Jsonata;

/** Always: Node requires JSONata above. (The browser build loads it at the first evaluation: jsonata.browser.ts.) */
export function jsonataLoaded(): boolean {
  return true;
}

/** Nothing to load on Node; the browser's sibling loads JSONata's chunk here. */
export async function loadJsonata(): Promise<void> {}
