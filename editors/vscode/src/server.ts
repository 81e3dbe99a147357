import { parseArgs } from 'node:util';

// The language server inside the .vsix, for a workspace without restfn installed: restfn's own
// `lsp` command bundle (dist/bin/commands/lsp-action.cjs, built by `npm run build`), which the
// packaging script bundles into dist/server/bin/lsp.js. The arguments are `restfn lsp`'s.

interface LspAction {
  lsp(options: { stdio?: boolean; solution?: string; delay: string }): Promise<void>;
}

const { lsp } = require('../../../dist/bin/commands/lsp-action.cjs') as LspAction;

try {
  const { values } = parseArgs({
    options: {
      stdio: { type: 'boolean' },
      solution: { type: 'string', short: 's' },
      delay: { type: 'string', default: '200' },
    },
    strict: true,
  });
  lsp({ stdio: values.stdio, solution: values.solution, delay: values.delay ?? '200' }).then(
    () => process.exit(0),
    (error: unknown) => fail(error),
  );
} catch (error) {
  fail(error);
}

function fail(error: unknown): never {
  process.stderr.write(`restfn lsp: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
}
