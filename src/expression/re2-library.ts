import { createRequire } from 'node:module';

/** re2js's CommonJS build, required when first needed (synchronously: compiling is). */
export function re2Library(): typeof import('re2js') {
  return createRequire(import.meta.url)('re2js') as typeof import('re2js');
}
