import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { CLI, runCli } from '../helpers/cli.js';
import { tempSolution } from '../helpers/temp-solution.js';

// A command's bundle is compiled with V8's code cache written beside it (src/cli/command-bundle.ts).
// On a copy of the built CLI, so that the caches other tests' commands write are not this test's:
// under node_modules/.cache (its packages resolve from there; nothing there is packed or committed).
const cacheDir = join(dirname(CLI), '..', '..', 'node_modules', '.cache');
mkdirSync(cacheDir, { recursive: true });
const copy = mkdtempSync(join(cacheDir, 'restfn-code-cache-test-'));
cpSync(dirname(CLI), join(copy, 'bin'), { recursive: true });
rmSync(join(copy, 'bin', 'commands', 'validate-action.cjs.cache'), { force: true });
afterAll(() => rmSync(copy, { recursive: true, force: true }));

describe('the commands’ code cache', () => {
  test('commands that share a bundle each have their own cache (each holds what its command ran)', async () => {
    const cli = join(copy, 'bin', 'restfn.js');
    const root = tempSolution({ 'solution.yaml': 'name: shared\n' });
    const commands = join(copy, 'bin', 'commands');
    rmSync(join(commands, 'new-action.cjs.cache'), { force: true });
    const created = await runCli(['new', 'rest-get-thing', '--url', 'https://api.example.com/things'], {
      cli,
      cwd: root,
    });
    expect(created.code, created.stderr).toBe(0);
    // validate and new are one bundle (scripts/build-cli.mjs): new's cache is made though validate's exists.
    await runCli(['validate'], { cli, cwd: root });
    expect(existsSync(join(commands, 'validate-action.cjs.cache'))).toBe(true);
    expect(existsSync(join(commands, 'new-action.cjs.cache'))).toBe(true);
    expect(existsSync(join(commands, 'authoring-action.cjs.cache'))).toBe(false);
  });

  test('is written at a command’s first run, kept while V8 accepts it, and replaced when it is not', async () => {
    const cli = join(copy, 'bin', 'restfn.js');
    const cache = join(copy, 'bin', 'commands', 'validate-action.cjs.cache');
    const root = tempSolution({
      'solution.yaml': 'name: cached\n',
      'functions/rest-get-items.platform':
        'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: https://api.example.com/items\noutputTransform: items\n',
    });
    const validate = async () => {
      const result = await runCli(['validate'], { cli, cwd: root });
      expect(result.stdout).toContain('2 files checked: 0 errors');
      expect(result.code).toBe(0);
    };

    await validate();
    expect(existsSync(cache)).toBe(true);
    const written = statSync(cache);
    expect(written.size).toBeGreaterThan(10_000);

    // Accepted: not written again (a rewrite replaces the file, a new inode).
    await validate();
    expect(statSync(cache).ino).toBe(written.ino);

    // Garbage (a truncated or foreign file): the command still runs, and the cache is made anew.
    writeFileSync(cache, Buffer.alloc(4096, 7));
    await validate();
    const replaced = readFileSync(cache);
    expect(replaced.length).toBeGreaterThan(10_000);
    expect(replaced.equals(Buffer.alloc(replaced.length, 7))).toBe(false);

    // Corrupted inside, its header intact (bit rot): V8's checksum refuses it, instead of crashing.
    const rotten = Buffer.from(replaced);
    for (const at of [1000, 5000, Math.floor(rotten.length / 2)])
      for (let i = 0; i < 64; i++) rotten[at + i]! ^= 0x5a;
    writeFileSync(cache, rotten);
    await validate();
    expect(readFileSync(cache).equals(rotten)).toBe(false);

    // A bundle replaced by another of the same length runs its own code, not the cached one.
    const bundle = join(copy, 'bin', 'commands', 'authoring-action.cjs');
    const text = readFileSync(bundle, 'utf8');
    expect(text).toContain(' checked: ');
    writeFileSync(bundle, text.replace(' checked: ', ' CHECKED: '));
    const changed = await runCli(['validate'], { cli, cwd: root });
    expect(changed.stdout).toContain('2 files CHECKED: 0 errors');
    writeFileSync(bundle, text);

    // Unreadable (here a folder where the file would be): compiled without, as if there were none.
    rmSync(cache);
    mkdirSync(cache);
    await validate();
  });

  test('a user who may not write beside the bundle keeps the cache in a folder of their own', () => {
    // An installation the user may read, not write: as root, run as `nobody` (root writes anywhere);
    // otherwise the folder is made read-only.
    const asRoot = process.getuid?.() === 0;
    const place = mkdtempSync(join(tmpdir(), 'restfn-readonly-install-'));
    try {
      cpSync(join(copy, 'bin'), join(place, 'bin'), { recursive: true });
      rmSync(join(place, 'bin', 'commands', 'validate-action.cjs.cache'), { recursive: true, force: true });
      const root = join(place, 'solution');
      mkdirSync(join(root, 'functions'), { recursive: true });
      writeFileSync(join(root, 'solution.yaml'), 'name: shared\n');
      writeFileSync(
        join(root, 'functions', 'rest-get-items.platform'),
        'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: https://api.example.com/items\n',
      );
      const home = join(place, 'home');
      mkdirSync(home);
      if (asRoot) {
        execFileSync('chmod', ['-R', 'a+rX', place]);
        const id = (flag: string) => Number(execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }));
        chownSync(home, id('-u'), id('-g'));
      } else chmodSync(join(place, 'bin', 'commands'), 0o555);
      const cli = join(place, 'bin', 'restfn.js');
      const env = { ...process.env, HOME: home, XDG_CACHE_HOME: '', NO_COLOR: '1' };
      const validate = () =>
        execFileSync(
          asRoot ? 'runuser' : process.execPath,
          [
            ...(asRoot ? ['-u', 'nobody', '--', 'env', `HOME=${home}`, process.execPath] : []),
            cli,
            'validate',
            '--solution',
            root,
          ],
          { env, encoding: 'utf8', cwd: place },
        );

      expect(validate()).toContain('2 files checked: 0 errors');
      const folder = join(home, '.cache', 'restfn', 'code-cache');
      const [installation] = execFileSync('ls', [folder], { encoding: 'utf8' }).split('\n');
      const cache = join(folder, installation!, 'validate-action.cjs.cache');
      const written = statSync(cache);
      expect(written.size).toBeGreaterThan(10_000);
      // The user's alone, and none beside the bundle.
      expect(statSync(dirname(cache)).mode & 0o777).toBe(0o700);
      expect(existsSync(join(place, 'bin', 'commands', 'validate-action.cjs.cache'))).toBe(false);
      // Accepted the next time: not written again.
      expect(validate()).toContain('2 files checked: 0 errors');
      expect(statSync(cache).ino).toBe(written.ino);
      if (asRoot) {
        // A cache there that is not the user's own (here root's), or a link, is code someone else
        // may have planted: not run, and replaced by the user's own.
        chownSync(cache, 0, 0);
        expect(validate()).toContain('2 files checked: 0 errors');
        const replaced = statSync(cache);
        expect(replaced.ino).not.toBe(written.ino);
        expect(replaced.uid).not.toBe(0);
        const elsewhere = join(place, 'planted.cache');
        cpSync(cache, elsewhere);
        chownSync(elsewhere, replaced.uid, replaced.gid);
        rmSync(cache);
        execFileSync('ln', ['-s', elsewhere, cache]);
        expect(validate()).toContain('2 files checked: 0 errors');
        expect(lstatSync(cache).isSymbolicLink()).toBe(false);
      }
    } finally {
      if (!asRoot) chmodSync(join(place, 'bin', 'commands'), 0o755);
      rmSync(place, { recursive: true, force: true });
    }
  });

  test('an error in a command is printed with its code through the bundle’s own error classes', async () => {
    const cli = join(copy, 'bin', 'restfn.js');
    const root = tempSolution({ 'solution.yaml': 'name: cached\n' });
    const result = await runCli(['run', 'rest-nope'], { cli, cwd: root });
    expect(result.stderr).toMatch(/restfn: error FUNCTION_NOT_FOUND: /);
    expect(result.stderr).not.toContain('INTERNAL');
    expect(result.code).not.toBe(0);
  });
});
