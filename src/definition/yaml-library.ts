import { createRequire } from 'node:module';

// Required rather than imported: `yaml` is CommonJS, and an `import` of it from an ES module first has
// Node scan each of its files for export names (cjs-module-lexer), a third of loading it (issue 11).
// The browser build imports it instead (yaml-library.browser.ts).
export const yamlLibrary = createRequire(import.meta.url)('yaml') as typeof import('yaml');
