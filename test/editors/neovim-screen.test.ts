import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';

// The extension README's picture of Neovim on `restfn lsp` is a capture of Neovim's real screen
// (editors/vscode/scripts/neovim-screen.mjs): a fresh capture must be what the README shows, so it
// can neither be drawn by hand nor go stale when the server's messages or completions change.

const VSCODE = join(import.meta.dirname, '..', '..', 'editors', 'vscode');

describe("the extension README's Neovim screen", { timeout: 180_000 }, () => {
  test('is what Neovim shows now (else: node editors/vscode/scripts/neovim-screen.mjs --write)', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [
      join(VSCODE, 'scripts', 'neovim-screen.mjs'),
    ]);
    const readme = readFileSync(join(VSCODE, 'README.md'), 'utf8');
    const shown = /<!-- neovim-screen:[^\n]*-->\n\n```text\n([\s\S]*?)\n```\n\n<!-- \/neovim-screen -->/.exec(
      readme,
    );
    expect(shown, 'README.md has no captured screen').not.toBeNull();
    // What the capture is for: the finding, and the functions offered.
    expect(stdout).toContain("■ function 'rest-get-cusomers' does not exist");
    expect(stdout).toMatch(/rest-get-orders +Function GET https:\/\/api\.example\.com\/orders/);
    expect(stdout.trimEnd()).toBe(shown![1]);
  });
});
