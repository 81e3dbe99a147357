import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';

/** The subcommands a help text lists (commander's Commands: section), `help` left out. */
function subcommands(help: string): string[] {
  const section = help.split('\nCommands:\n')[1]?.split('\n\n')[0] ?? '';
  return section
    .split('\n')
    .map((line) => /^ {2}([a-z][a-z-]*)/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined && name !== 'help');
}

/** The `$ restfn ...` lines of a help's Examples section. */
function examples(help: string): string[] {
  const section = help.split('\nExamples:\n')[1] ?? '';
  return [...section.matchAll(/^ {2}\$ (.+)$/gm)].map((m) => m[1]!);
}

/** A command line as a shell splits it (plain words and '...' only: the examples use no more). */
function words(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

describe('--help has examples', () => {
  it("every command's help ends with an Examples section of restfn commands", async () => {
    const seen: string[] = [];
    const visit = async (path: string[]) => {
      const { stdout, code } = await runCli([...path, '--help']);
      expect(code, path.join(' ')).toBe(0);
      expect(stdout, `restfn ${path.join(' ')} --help`).toContain('\nExamples:\n  # ');
      const listed = examples(stdout);
      expect(listed.length, path.join(' ')).toBeGreaterThan(0);
      for (const line of listed) expect(line).toMatch(/^restfn /);
      seen.push(path.join(' '));
      for (const sub of subcommands(stdout)) await visit([...path, sub]);
    };
    await visit([]);
    // The walk found the command tree (not an empty Commands: section).
    expect(seen).toEqual(
      expect.arrayContaining(['run', 'queue retry', 'login', 'logout', 'targets add', 'tokens create']),
    );
    expect(seen.length).toBeGreaterThan(35);
  });

  it('a handful of the examples run as written, in a solution restfn init made', async () => {
    const service = await testServer((_req, res) =>
      json(res, 200, [
        { id: 1, name: 'Ada' },
        { id: 2, name: 'Grace' },
      ]),
    );
    const help = async (...path: string[]) => examples((await runCli([...path, '--help'])).stdout);
    const here = mkdtempSync(join(tmpdir(), 'restfn-examples-'));
    const demo = join(here, 'demo');
    // The address the examples use is this test's service.
    const run = async (line: string, cwd: string) => {
      const args = words(line.replace('https://api.example.com/items', `${service.url}/items`)).slice(1);
      const result = await runCli(args, { cwd });
      expect(result.code, `${line}\n${result.stderr}`).toBe(0);
      return result;
    };
    const [init] = await help('init');
    await run(init!, here);
    await run((await help('validate'))[0]!, demo);
    const [plain, traced, filtered] = await help('run');
    expect(JSON.parse((await run(plain!, demo)).stdout)).toHaveLength(2);
    expect((await run(traced!, demo)).stderr).toContain('limit=5');
    expect((await run(filtered!, demo)).stdout).toBe('Ada\n');
    const made = await help('new');
    // made[1] writes a POST function with --method; 2 the datasource, 3 the PUT the action (4) queues
    await run(made[1]!, demo);
    expect(readFileSync(join(demo, 'functions', 'rest-create-order.platform'), 'utf8')).toMatch(
      /^method: POST$/m,
    );
    await run(made[2]!, demo);
    await run(made[3]!, demo);
    expect(readFileSync(join(demo, 'functions', 'rest-update-item.platform'), 'utf8')).toMatch(
      /^method: PUT$/m,
    );
    await run(made[4]!, demo);
    // The action updates with a function that updates: never with a GET.
    const action = readFileSync(join(demo, 'actions', 'update-item.platform'), 'utf8');
    expect(action).toMatch(/^ {2}function: rest-update-item$/m);
    expect(made[4]).not.toMatch(/-f rest-get-/);
    await run((await help('sync'))[0]!, demo);
    const [rows, ids] = await help('query');
    expect(JSON.parse((await run(rows!, demo)).stdout)).toHaveLength(2);
    expect(JSON.parse((await run(ids!, demo)).stdout)).toEqual([{ id: '1' }, { id: '2' }]);
    const offline = (await help('action'))[1]!;
    await run(offline, demo);
    const queued = JSON.parse((await run((await help('queue', 'list'))[0]!, demo)).stdout);
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({ type: 'update', function: 'rest-update-item' });
    // -e's help says what it is for an action.
    expect((await runCli(['new', '--help'])).stdout).toMatch(/required\s+for\s+--template\s+action/);
  });
});
