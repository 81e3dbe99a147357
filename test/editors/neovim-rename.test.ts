import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { CLI, runCli } from '../helpers/cli.js';
import { DATASOURCE, FUNCTION } from '../helpers/language-solution.js';
import { tempSolution } from '../helpers/temp-solution.js';

// Neovim 0.7 (as neovim.test.ts runs it, docs/editor.md's setup) renaming a function's file:
// `:saveas` the new name, the old file deleted, then `:w` in the datasource naming the old name
// and Validate: the editor agrees with `restfn validate` (Neovim 0.7 sends no didClose for the old
// name and watches no files). The waits are Neovim's (`vim.wait`), generous; nothing measures time.

/** The documented configuration: the lua block after docs/editor.md's "Neovim 0.7" line. */
function documentedSetup(): string {
  const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'editor.md'), 'utf8');
  const block = /^Neovim 0\.7[\s\S]*?```lua\n([\s\S]*?)```/m.exec(doc);
  if (!block) throw new Error('docs/editor.md has no lua block for Neovim 0.7');
  return block[1]!;
}

// Before the documented block: the server's exit is noted, so that a server failing to start ends
// the wait at once rather than at its timeout.
const PRELUDE = `
local exited
local start_client = vim.lsp.start_client
vim.lsp.start_client = function(config)
  local on_exit = config.on_exit
  config.on_exit = function(code, ...)
    exited = code
    if on_exit then on_exit(code, ...) end
  end
  return start_client(config)
end
`;

const HARNESS = `
local root, out = os.getenv('RESTFN_ROOT'), os.getenv('RESTFN_OUT')

local function finish(result)
  local f = assert(io.open(out, 'w'))
  f:write(vim.fn.json_encode(result))
  f:close()
  vim.cmd('qall!')
end

local ok, err = pcall(function()
  local old = root .. '/functions/rest-get-customers.platform'
  vim.cmd('edit ' .. vim.fn.fnameescape(old))
  vim.wait(90000, function() return #vim.lsp.buf_get_clients(0) > 0 or exited ~= nil end, 50)
  if exited ~= nil then error('restfn lsp exited ' .. exited) end
  vim.cmd('saveas ' .. vim.fn.fnameescape(root .. '/functions/rest-list-customers.platform'))
  os.remove(old)
  vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/datasources/customers.platform'))
  local buf = vim.api.nvim_get_current_buf()
  vim.wait(90000, function() return #vim.lsp.buf_get_clients(buf) > 0 end, 50)
  vim.cmd('write')
  vim.wait(90000, function() return #vim.diagnostic.get(buf) > 0 or exited ~= nil end, 50)
  local codes = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do table.insert(codes, d.code) end
  local validated = vim.lsp.buf_request_sync(buf, 'workspace/executeCommand', {
    command = 'restfn.validate', arguments = {},
  }, 90000)
  local answer
  for _, response in pairs(validated or {}) do answer = response.result or response.err end
  local line = vim.api.nvim_buf_get_lines(buf, 5, 6, false)[1]
  local responses = vim.lsp.buf_request_sync(buf, 'textDocument/completion', {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = 5, character = #'      function: ' },
  }, 90000)
  local labels = {}
  for _, response in pairs(responses or {}) do
    local items = response.result and (response.result.items or response.result) or {}
    for _, item in ipairs(items) do table.insert(labels, item.label) end
  end
  finish({ codes = codes, validate = answer, completion = labels, line = line })
end)
if not ok then finish({ error = tostring(err) }) end
`;

describe('Neovim 0.7 with restfn lsp: a file renamed', { timeout: 240_000 }, () => {
  test(':saveas a function file, the old one deleted: :w and Validate agree with restfn validate', async () => {
    const root = tempSolution({
      'functions/rest-get-customers.platform': FUNCTION,
      'datasources/customers.platform': DATASOURCE('rest-get-customers'),
      'solution.yaml': 'name: shop\ntitle: Shop\n',
    });
    const init = join(root, 'init.lua');
    const out = join(root, 'nvim-result.json');
    writeFileSync(init, PRELUDE + documentedSetup() + HARNESS);
    const bin = join(root, '.bin');
    mkdirSync(bin);
    writeFileSync(
      join(bin, 'restfn'),
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`,
      {
        mode: 0o755,
      },
    );
    const run = await promisify(execFile)('nvim', ['--headless', '--clean', '-u', init], {
      cwd: root,
      env: {
        ...process.env,
        PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
        RESTFN_ROOT: root,
        RESTFN_OUT: out,
        XDG_CACHE_HOME: join(root, '.nvim'),
        XDG_STATE_HOME: join(root, '.nvim'),
        XDG_DATA_HOME: join(root, '.nvim'),
      },
      timeout: 200_000,
    });
    const result = JSON.parse(readFileSync(out, 'utf8')) as {
      error?: string;
      codes: string[];
      validate: unknown;
      completion: string[];
      line: string;
    };
    expect(result.error, run.stderr).toBeUndefined();
    const cli = await runCli(['validate', '--format', 'json'], { cwd: root });
    const expected = (JSON.parse(cli.stdout).diagnostics as Array<{ code: string }>).map((d) => d.code);
    expect(expected).toEqual(['UNKNOWN_FUNCTION']);
    expect(result.line).toBe('      function: rest-get-customers');
    expect(result.codes).toEqual(expected);
    expect(result.validate).toEqual({ files: 3, errors: 1, warnings: 0 });
    expect(result.completion).toEqual(['rest-list-customers']);
  });
});
