// The extension README's "screenshot" of Neovim using the same server: Neovim's screen as text.
// A real Neovim (`nvim --embed`, the UI protocol over MessagePack-RPC) configured with
// docs/editor.md's block for Neovim 0.7, `restfn lsp` from this checkout's build on the PATH,
// opens a datasource naming a function with a typo; once the finding is shown, the function's
// name is replaced and completion asked for (`<C-x><C-o>`). The screen grid Neovim sends its UI
// is kept and printed when the completion menu is on it. The repository holds no image and no
// generated file: this text in editors/vscode/README.md, which test/editors/neovim-screen.test.ts
// compares with a fresh capture.
//
//   node editors/vscode/scripts/neovim-screen.mjs            prints the capture
//   node editors/vscode/scripts/neovim-screen.mjs --write    puts it in editors/vscode/README.md
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { decodeAll, encode } from './msgpack.mjs';

const extension = resolve(import.meta.dirname, '..');
const root = resolve(extension, '..', '..');
const CLI = join(root, 'dist', 'bin', 'restfn.js');
const README = join(extension, 'README.md');
const WIDTH = 128;
const HEIGHT = 16;
const BEGIN = '<!-- neovim-screen: node editors/vscode/scripts/neovim-screen.mjs --write -->';
const END = '<!-- /neovim-screen -->';

const FUNCTION = (path) => `provider: DATA_PROVIDER_REST
method: GET
url: https://api.example.com/${path}
outputTransform: $.items
`;
const SOLUTION = {
  'solution.yaml': 'name: shop\ntitle: Shop\n',
  'functions/rest-get-customers.platform': FUNCTION('customers'),
  'functions/rest-get-orders.platform': FUNCTION('orders'),
  'datasources/customers.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: customers
      function: rest-get-cusomers
  query: SELECT id, data FROM [customers]
`,
};

// After the documented setup: a finding tells this script (its first finding shown), and
// completion shows its menu without inserting (the menu is what the capture is for).
const CAPTURE = `
vim.opt.iskeyword:append('-')
vim.opt.completeopt = { 'menuone', 'noselect' }
vim.api.nvim_create_autocmd('DiagnosticChanged', {
  callback = function(args)
    if #vim.diagnostic.get(args.buf) > 0 then vim.rpcnotify(0, 'restfn_diagnostics') end
  end,
})
`;

/** The lua block after docs/editor.md's "Neovim 0.7" line (the same test/editors/neovim.test.ts runs). */
function documentedSetup() {
  const doc = readFileSync(join(root, 'docs', 'editor.md'), 'utf8');
  const block = /^Neovim 0\.7[\s\S]*?```lua\n([\s\S]*?)```/m.exec(doc);
  if (!block) throw new Error('docs/editor.md has no lua block for Neovim 0.7');
  return block[1];
}

/** Neovim's screen, as text rows (trailing blanks cut), once the completion menu is on it. */
export async function captureScreen() {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  const dir = mkdtempSync(join(tmpdir(), 'restfn-nvim-screen-'));
  try {
    for (const [path, text] of Object.entries(SOLUTION)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const bin = join(dir, '.bin');
    mkdirSync(bin);
    writeFileSync(
      join(bin, 'restfn'),
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`,
      {
        mode: 0o755,
      },
    );
    writeFileSync(join(dir, '.init.lua'), documentedSetup() + CAPTURE);
    return await runNeovim(dir, bin);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function runNeovim(dir, bin) {
  const nvim = spawn('nvim', ['--embed', '--clean', '-u', '.init.lua', 'datasources/customers.platform'], {
    cwd: dir,
    env: {
      ...process.env,
      PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
      XDG_CACHE_HOME: join(dir, '.nvim'),
      XDG_STATE_HOME: join(dir, '.nvim'),
      XDG_DATA_HOME: join(dir, '.nvim'),
    },
  });
  const grid = Array.from({ length: HEIGHT }, () => Array(WIDTH).fill(' '));
  const text = () => grid.map((row) => row.join('').trimEnd()).join('\n');
  let id = 0;
  let typed = false;
  const send = (method, params) => nvim.stdin.write(encode([0, id++, method, params]));
  return new Promise((done, fail) => {
    // A hang detector, not a measure: Neovim and the server have a minute to show both.
    const timer = setTimeout(
      () => finish(new Error(`no completion menu on Neovim's screen:\n${text()}`)),
      60_000,
    );
    const finish = (error) => {
      clearTimeout(timer);
      nvim.kill();
      if (error) fail(error);
      else done(text());
    };
    nvim.on('error', finish);
    nvim.on('exit', (code) => finish(new Error(`nvim exited (${code}) before the capture`)));
    let pending = Buffer.alloc(0);
    nvim.stdout.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      const { values, used } = decodeAll(pending);
      pending = pending.subarray(used);
      for (const [type, ...message] of values) {
        if (type === 1 && message[1]) finish(new Error(`nvim: ${JSON.stringify(message[1])}`));
        if (type !== 2) continue;
        const [method, params] = message;
        // Replace the misspelt name and ask for the names the server knows (once: the edit brings
        // findings of its own).
        if (method === 'restfn_diagnostics' && !typed) {
          typed = true;
          send('nvim_input', ['6G$ciw<C-x><C-o>']);
        }
        if (method !== 'redraw') continue;
        for (const [name, ...calls] of params) {
          for (const args of calls) apply(grid, name, args);
          if (name === 'flush' && text().includes('rest-get-orders')) finish();
        }
      }
    });
    // rpcnotify(0, ...) reaches the channels that subscribed to the event.
    send('nvim_subscribe', ['restfn_diagnostics']);
    send('nvim_ui_attach', [WIDTH, HEIGHT, { rgb: true, ext_linegrid: true }]);
  });
}

/** One redraw event of Neovim's UI protocol (ext_linegrid, one grid) applied to the screen. */
function apply(grid, name, args) {
  if (name === 'grid_clear') for (const row of grid) row.fill(' ');
  else if (name === 'grid_line') {
    const [, row, start, cells] = args;
    let col = start;
    for (const [cell, , repeat = 1] of cells)
      for (let i = 0; i < repeat; i++) if (grid[row] && col < WIDTH) grid[row][col++] = cell;
  } else if (name === 'grid_scroll') {
    const [, top, bottom, left, right, rows] = args;
    const moved = (r) => grid[r].slice(left, right);
    if (rows > 0)
      for (let r = top; r < bottom - rows; r++) grid[r].splice(left, right - left, ...moved(r + rows));
    else
      for (let r = bottom - 1; r >= top - rows; r--) grid[r].splice(left, right - left, ...moved(r + rows));
  }
}

/** The README with this capture between its markers. */
export function withCapture(readme, screen) {
  const begin = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`${README} has no ${BEGIN} ... ${END}`);
  return `${readme.slice(0, begin + BEGIN.length)}\n\n\`\`\`text\n${screen}\n\`\`\`\n\n${readme.slice(end)}`;
}

if (process.argv[1] === import.meta.filename) {
  const { values } = parseArgs({ options: { write: { type: 'boolean' } }, strict: true });
  const screen = await captureScreen();
  if (values.write) writeFileSync(README, withCapture(readFileSync(README, 'utf8'), screen));
  else process.stdout.write(`${screen}\n`);
}
