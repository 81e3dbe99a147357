import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DATASOURCE, FUNCTION } from '../helpers/language-solution.js';
import { runNeovim } from '../helpers/neovim.js';
import { tempSolution } from '../helpers/temp-solution.js';

// A real editor on `restfn lsp`: Neovim headless (Debian's 0.7, installed by .ci/run), configured
// with docs/editor.md's block for 0.7 (`vim.lsp.start_client` + `vim.lsp.buf_attach_client` in an
// autocommand), as written, with `restfn` on the PATH. It opens a datasource naming a function
// with a typo; Neovim's own LSP client receives the pushed findings and asks for a completion, and
// the harness below writes both as JSON for the test to read. The waits are Neovim's
// (`vim.wait`), generous; nothing here measures time.

// After it: open the file (the autocommands start and attach the server), read what arrives.
const HARNESS = `
local file = os.getenv('RESTFN_FILE')

local ok, err = pcall(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  vim.wait(90000, function() return #vim.diagnostic.get(buf) > 0 or exited ~= nil end, 50)
  if exited ~= nil then error('restfn lsp exited ' .. exited .. '; see ' .. vim.lsp.get_log_path()) end
  local diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(diagnostics, {
      code = d.code, message = d.message, source = d.source, severity = d.severity,
      lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
    })
  end
  local line = vim.api.nvim_buf_get_lines(buf, 5, 6, false)[1]
  local labels = completion_labels(buf, 5, #line)
  finish({
    diagnostics = diagnostics, completion = labels, line = line,
    filetype = vim.bo[buf].filetype, omnifunc = vim.bo[buf].omnifunc,
  })
end)
if not ok then finish({ error = tostring(err) }) end
`;

// Or: open a file not written yet (a new solution.yaml, a new function in a folder with no
// solution.yaml), wait for the server to attach and start, and ask it for completion at the start.
const HARNESS_NEW = `
local file = os.getenv('RESTFN_FILE')

-- After start-up, as a user opens a file: Neovim turns filetype detection on after the init file
-- (the .platform autocommand alone set the filetype above), and a new solution.yaml needs it;
-- nested, so that the edit's own autocommands (filetype, the documented FileType one) run.
vim.api.nvim_create_autocmd('VimEnter', { nested = true, callback = function()
local ok, err = pcall(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  -- No server started for it: nothing to wait for.
  if not started then return finish({ roots = {}, completion = {}, exists = vim.fn.filereadable(file) }) end
  -- Neovim 0.7 lists a buffer's client once the server has answered \`initialize\`.
  vim.wait(90000, function() return next(vim.lsp.buf_get_clients(buf)) ~= nil or exited ~= nil end, 50)
  if exited ~= nil then error('restfn lsp exited ' .. exited .. '; see ' .. vim.lsp.get_log_path()) end
  local roots = {}
  for _, client in pairs(vim.lsp.buf_get_clients(buf)) do table.insert(roots, client.config.root_dir) end
  local labels = completion_labels(buf, 0, 0)
  finish({ roots = roots, completion = labels, exists = vim.fn.filereadable(file) })
end)
if not ok then finish({ error = tostring(err) }) end
end })
`;

interface Result {
  error?: string;
  line: string;
  diagnostics: Array<{
    code: string;
    message: string;
    source: string;
    severity: number;
    lnum: number;
    col: number;
    end_lnum: number;
    end_col: number;
  }>;
  completion: string[];
  filetype: string;
  omnifunc: string;
}

describe('Neovim 0.7 with restfn lsp', { timeout: 240_000 }, () => {
  test("a typo's finding is pushed to Neovim's diagnostics, and its completion lists the functions", async () => {
    const root = tempSolution({
      'functions/rest-get-customers.platform': FUNCTION,
      'functions/rest-get-orders.platform': FUNCTION,
      'datasources/customers.platform': DATASOURCE('rest-get-cusomers'),
      'solution.yaml': 'name: shop\ntitle: Shop\n',
    });
    const result = await runNeovim<Result>(root, HARNESS, {
      RESTFN_FILE: join(root, 'datasources', 'customers.platform'),
    });
    expect(result.filetype).toBe('yaml');
    expect(result.omnifunc).toBe('v:lua.vim.lsp.omnifunc');
    expect(result.line).toBe('      function: rest-get-cusomers');
    expect(result.diagnostics).toEqual([
      {
        code: 'UNKNOWN_FUNCTION',
        message: expect.stringContaining("did you mean 'rest-get-customers'"),
        source: 'restfn',
        severity: 1,
        lnum: 5,
        col: '      function: '.length,
        end_lnum: 5,
        end_col: '      function: rest-get-cusomers'.length,
      },
    ]);
    expect(result.completion.sort()).toEqual(['rest-get-customers', 'rest-get-orders']);
  });

  test('a solution.yaml or function not written yet, in a folder with no solution.yaml, gets the server', async () => {
    for (const [name, expected] of [
      ['solution.yaml', 'name'],
      // An empty function file: the templates restfn new offers.
      [join('functions', 'rest-new.platform'), 'template: rest'],
    ] as const) {
      const root = tempSolution({});
      const file = join(root, name);
      const result = await runNeovim<{ roots: string[]; completion: string[]; exists: number }>(
        root,
        HARNESS_NEW,
        { RESTFN_FILE: file },
      );
      // Attached with the solution's folder as the root (before, findfile found no solution.yaml).
      expect(result.exists, name).toBe(0);
      expect(result.roots, name).toEqual([realpathSync(root)]);
      expect(result.completion, name).toContain(expected);
    }
  });
});
