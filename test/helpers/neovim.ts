import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { CLI } from './cli.js';

// A real editor on `restfn lsp`: Neovim headless (Debian's 0.7, installed by .ci/run), configured
// with docs/editor.md's block for 0.7 as written, `restfn` on the PATH being the checkout's build.
// A test gives the Lua that acts as the person would and writes what Neovim shows as JSON to
// $RESTFN_OUT (`finish(result)` and `completion_labels(buf, line, character)` are defined for it). The waits are Neovim's (`vim.wait`),
// generous; nothing here measures time.

/** The documented configuration: the lua block after docs/editor.md's "Neovim 0.7" line. */
export function documentedSetup(): string {
  const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'editor.md'), 'utf8');
  const block = /^Neovim 0\.7[\s\S]*?```lua\n([\s\S]*?)```/m.exec(doc);
  if (!block) throw new Error('docs/editor.md has no lua block for Neovim 0.7');
  return block[1]!;
}

// Before the documented block: whether a server started, and its exit, are noted, so that a server
// failing to start ends a wait at once rather than at its timeout (`started`, `exited`).
const PRELUDE = `
local exited, started
local start_client = vim.lsp.start_client
vim.lsp.start_client = function(config)
  started = true
  local on_exit = config.on_exit
  config.on_exit = function(code, ...)
    exited = code
    if on_exit then on_exit(code, ...) end
  end
  return start_client(config)
end

local out = os.getenv('RESTFN_OUT')
local function finish(result)
  local f = assert(io.open(out, 'w'))
  f:write(vim.fn.json_encode(result))
  f:close()
  vim.cmd('qall!')
end

-- What Neovim's own client gets for a completion at line:character of a buffer: the labels.
local function completion_labels(buf, line, character)
  local responses = vim.lsp.buf_request_sync(buf, 'textDocument/completion', {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = line, character = character },
  }, 90000)
  local labels = {}
  for _, response in pairs(responses or {}) do
    local items = response.result and (response.result.items or response.result) or {}
    for _, item in ipairs(items) do table.insert(labels, item.label) end
  end
  return labels
end
`;

/**
 * Runs headless Neovim 0.7 in `root` on the documented setup and then `harness` (Lua; its
 * environment has `env`'s variables); what the harness passed to `finish`. A result with `error`
 * fails the test, with Neovim's stderr.
 */
export async function runNeovim<T>(
  root: string,
  harness: string,
  env: Record<string, string> = {},
): Promise<T & { error?: string }> {
  const init = join(root, '.init.lua');
  const out = join(root, '.nvim-result.json');
  writeFileSync(init, PRELUDE + documentedSetup() + harness);
  const bin = join(root, '.bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(bin, 'restfn'),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`,
    { mode: 0o755 },
  );
  const run = await promisify(execFile)('nvim', ['--headless', '--clean', '-u', init], {
    cwd: root,
    env: {
      ...process.env,
      ...env,
      PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
      RESTFN_OUT: out,
      // Neovim's log (lsp.log) and state in the test's folder, not the user's.
      XDG_CACHE_HOME: join(root, '.nvim'),
      XDG_STATE_HOME: join(root, '.nvim'),
      XDG_DATA_HOME: join(root, '.nvim'),
    },
    timeout: 200_000,
  });
  const result = JSON.parse(readFileSync(out, 'utf8')) as T & { error?: string };
  expect(result.error, run.stderr).toBeUndefined();
  return result;
}
