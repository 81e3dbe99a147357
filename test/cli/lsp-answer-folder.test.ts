import { existsSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { removeStaleAnswers } from '../../src/cli/lsp/result-document.js';

// `restfn lsp`'s answer folders (Run/Publish documents) left by a killed server: removed at startup
// once older than a day, and only folders named as the server names them.

describe('stale answer folders', () => {
  test('only restfn-lsp-XXXXXX folders older than a day are removed', () => {
    const temp = mkdtempSync(join(tmpdir(), 'answers-'));
    const now = Date.parse('2026-11-28T02:00:00Z');
    const old = (now - 2 * 24 * 60 * 60 * 1000) / 1000;
    const make = (name: string, seconds: number, folder = true) => {
      const path = join(temp, name);
      if (folder) {
        mkdirSync(path);
        writeFileSync(join(path, 'run.json'), '{}\n');
      } else writeFileSync(path, 'x');
      utimesSync(path, seconds, seconds);
      return path;
    };
    const stale = make('restfn-lsp-abc123', old);
    const recent = make('restfn-lsp-def456', now / 1000 - 60);
    const otherName = make('restfn-lsp-not-ours', old);
    const aFile = make('restfn-lsp-ghi789', old, false);
    removeStaleAnswers(now, temp);
    expect([stale, recent, otherName, aFile].map((p) => existsSync(p))).toEqual([false, true, true, true]);
  });
});
