import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

let dateFnsText: string | undefined;

/**
 * The date-fns package's own prebuilt bundle (`cdn.min.js`, all its functions in one script that
 * sets `window.dateFns`), read once per process. The build copies it to dist/vendor/ (issue 38:
 * the package is 11 MB installed, of which scripts read this 90 KB file), two folders up from both
 * this module's output and the CLI's bundles; a checkout's sources read the package (a dev
 * dependency).
 */
export async function dateFnsSource(): Promise<string> {
  if (dateFnsText === undefined) {
    try {
      dateFnsText = readFileSync(new URL('../../vendor/date-fns.cdn.min.js', import.meta.url), 'utf8');
    } catch {
      const require = createRequire(import.meta.url);
      const root = dirname(require.resolve('date-fns/package.json'));
      dateFnsText = readFileSync(join(root, 'cdn.min.js'), 'utf8');
    }
  }
  return dateFnsText;
}
