// Writes docs/reference.md from the schema (run through `npm run docs`, which builds first).
import { writeFileSync } from 'node:fs';
import { referenceDoc } from '../dist/definition/reference-doc.js';

writeFileSync(new URL('../docs/reference.md', import.meta.url), referenceDoc());
console.log('wrote docs/reference.md');
