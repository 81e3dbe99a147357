import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, onTestFinished, test } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

// The README's library examples, read as one script the way a reader would put them together,
// type-checked strictly against the published types (dist/index.d.ts, as `import ... from 'restfn'`
// resolves them), library checks on.
test("the README's TypeScript blocks type-check against the published types (skipLibCheck off)", async () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
  expect(blocks.length).toBeGreaterThanOrEqual(2);
  // In the checkout, so that the project's own dependencies' types are found as a user's would be.
  const dir = mkdtempSync(join(root, 'test', '.readme-types-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'readme.ts'), `${blocks.join('\n')}\nexport {};\n`);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2023',
        module: 'ESNext',
        moduleResolution: 'Bundler',
        lib: ['ES2023'],
        types: ['node'],
        strict: true,
        skipLibCheck: false,
        noEmit: true,
        paths: { restfn: [join(root, 'dist', 'index.d.ts')] },
      },
      files: ['readme.ts'],
    }),
  );
  const tsc = join(root, 'node_modules', '.bin', 'tsc');
  const checked = await promisify(execFile)(tsc, ['-p', join(dir, 'tsconfig.json')]).then(
    () => ({ code: 0, out: '' }),
    (error: { code?: number; stdout?: string }) => ({ code: error.code ?? 1, out: error.stdout ?? '' }),
  );
  expect(checked.out).toBe('');
  expect(checked.code).toBe(0);
}, 120_000);
