import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { DATASOURCE, FUNCTION } from '../helpers/language-solution.js';
import { runNeovim } from '../helpers/neovim.js';
import { tempSolution } from '../helpers/temp-solution.js';

// Neovim 0.7 (as neovim.test.ts runs it, docs/editor.md's setup) renaming a function's file:
// `:saveas` the new name, the old file deleted, then `:w` in the datasource naming the old name
// and Validate: the editor agrees with `restfn validate` (Neovim 0.7 sends no didClose for the old
// name and watches no files). The waits are Neovim's (`vim.wait`), generous; nothing measures time.

const HARNESS = `
local root = os.getenv('RESTFN_ROOT')

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
  local labels = completion_labels(buf, 5, #'      function: ')
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
    const result = await runNeovim<{
      codes: string[];
      validate: unknown;
      completion: string[];
      line: string;
    }>(root, HARNESS, { RESTFN_ROOT: root });
    const cli = await runCli(['validate', '--format', 'json'], { cwd: root });
    const expected = (JSON.parse(cli.stdout).diagnostics as Array<{ code: string }>).map((d) => d.code);
    expect(expected).toEqual(['UNKNOWN_FUNCTION']);
    expect(result.line).toBe('      function: rest-get-customers');
    expect(result.codes).toEqual(expected);
    expect(result.validate).toEqual({ files: 3, errors: 1, warnings: 0 });
    expect(result.completion).toEqual(['rest-list-customers']);
  });
});
