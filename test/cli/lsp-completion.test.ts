import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  type CompletionItem,
  CompletionRequest,
  InsertTextFormat,
} from 'vscode-languageserver-protocol/node';
import { runCli } from '../helpers/cli.js';
import { cursor } from '../helpers/completion-solution.js';
import { json, testServer } from '../helpers/http-server.js';
import { type LspClient, openDocument, startLsp } from '../helpers/lsp-client.js';
import { functionFile, solutionWithKey, startPlatformProcess } from '../helpers/platform.js';
import { tempSolution } from '../helpers/temp-solution.js';

// Completion through `restfn lsp` as an editor asks for it, credential keys included: read from a
// real local store and a real `restfn serve`, and never a credential's value.

const LOCAL_SECRET = 'Lc4l-S3cret-Value-9f2Q';
const PLATFORM_SECRET = 'Pl4tf0rm-S3cret-Value-7xW';

const FUNCTION = `provider: DATA_PROVIDER_REST
method: GET
url: https://api.example.com/customers
parameters:
  x-api-key:
    location: header
    type: secret
    required: true
    value: ‸
`;

async function completeIn(lsp: LspClient, path: string, marked: string): Promise<CompletionItem[]> {
  const { text, line, character } = cursor(marked);
  const { uri } = await openDocument(lsp, path, text);
  const answer = await lsp.client.sendRequest(CompletionRequest.type, {
    textDocument: { uri },
    position: { line, character },
  });
  return Array.isArray(answer) ? answer : (answer?.items ?? []);
}

async function storeLocally(root: string, env: Record<string, string>, key: string, value: string) {
  const r = await runCli(['credentials', 'set', key, '--kind', 'secret'], { cwd: root, env, input: value });
  expect(r.code, r.stderr).toBe(0);
}

describe('restfn lsp completion', { timeout: 60_000 }, () => {
  test("a credential parameter's value: the local store's keys and the platform's, never a value", async () => {
    const platform = await startPlatformProcess();
    const { author } = await solutionWithKey(
      platform,
      { 'functions/rest-x.platform': functionFile('https://api.example.com/x') },
      { secret: PLATFORM_SECRET, origins: ['https://api.example.com'] },
    );
    const root = tempSolution({ 'solution.yaml': 'name: s\n' });
    const env = { XDG_CONFIG_HOME: join(root, 'config') };
    await storeLocally(root, env, 'crm-local-key', LOCAL_SECRET);

    const lsp = await startLsp(root, { env: { ...env, RESTFN_SERVER: platform.url, RESTFN_TOKEN: author } });
    const items = await completeIn(lsp, join(root, 'functions', 'rest-get-customers.platform'), FUNCTION);
    expect(items.map((i) => [i.label, i.detail])).toEqual([
      ['crm-local-key', 'secret credential (this machine)'],
      ['api-key', 'secret credential (the platform)'],
    ]);
    expect(items[0]!.textEdit).toEqual({
      range: { start: { line: 8, character: 11 }, end: { line: 8, character: 11 } },
      newText: 'crm-local-key',
    });
    const everything = JSON.stringify(items);
    expect(everything).not.toContain(LOCAL_SECRET);
    expect(everything).not.toContain(PLATFORM_SECRET);
    expect(lsp.stderr()).toBe('');
  });

  test('a platform that fails gives the local keys, and no error in the editor', async () => {
    const down = await testServer((_req, res) => json(res, 503, { message: 'maintenance' }));
    const root = tempSolution({ 'solution.yaml': 'name: s\n' });
    const env = { XDG_CONFIG_HOME: join(root, 'config') };
    await storeLocally(root, env, 'crm-local-key', LOCAL_SECRET);
    const lsp = await startLsp(root, {
      env: { ...env, RESTFN_SERVER: down.url, RESTFN_TOKEN: 'some-token' },
    });
    const items = await completeIn(lsp, join(root, 'functions', 'rest-get-customers.platform'), FUNCTION);
    expect(items.map((i) => i.label)).toEqual(['crm-local-key']);
    // The platform was asked (for solution s's credentials), and its failure stayed quiet.
    expect(down.requests.map((r) => r.url)).toEqual(['/api/v1/solutions/s/credentials']);
    expect(lsp.stderr()).toBe('');
  });

  test("the editor's server setting (RESTFN_LSP_SERVER) never gets RESTFN_TOKEN, only that platform's own login", async () => {
    const answer = (_req: unknown, res: Parameters<typeof json>[0]) =>
      json(res, 200, { credentials: [{ key: 'from-platform', kind: 'secret' }] });
    const fake = await testServer(answer);
    const real = await testServer(answer);
    const root = tempSolution({ 'solution.yaml': 'name: s\n' });
    const config = join(root, 'config');
    const file = join(root, 'functions', 'rest-get-customers.platform');
    const base = { XDG_CONFIG_HOME: config, RESTFN_SERVER: real.url, RESTFN_TOKEN: 'real-token' };
    // A workspace's setting names another server: no token goes there.
    const lsp = await startLsp(root, { env: { ...base, RESTFN_LSP_SERVER: fake.url } });
    expect((await completeIn(lsp, file, FUNCTION)).map((i) => i.label)).toEqual([]);
    expect(fake.requests.map((r) => r.headers.authorization)).toEqual([]);
    expect(real.requests).toEqual([]);
    // The same platform as RESTFN_SERVER: RESTFN_TOKEN is sent.
    const same = await startLsp(root, { env: { ...base, RESTFN_LSP_SERVER: real.url } });
    expect((await completeIn(same, file, FUNCTION)).map((i) => i.label)).toEqual(['from-platform']);
    expect(real.requests.map((r) => r.headers.authorization)).toEqual(['Bearer real-token']);
    // A platform signed in to ('restfn login'): its own token, never RESTFN_TOKEN.
    mkdirSync(join(config, 'restfn'), { recursive: true });
    writeFileSync(
      join(config, 'restfn', 'platforms.json'),
      JSON.stringify({
        platforms: {
          [fake.url]: { user: 'a', role: 'author', token: 'its-own', at: '2026-11-28T00:00:00Z' },
        },
      }),
    );
    const loggedIn = await startLsp(root, { env: { ...base, RESTFN_LSP_SERVER: fake.url } });
    expect((await completeIn(loggedIn, file, FUNCTION)).map((i) => i.label)).toEqual(['from-platform']);
    expect(fake.requests.map((r) => r.headers.authorization)).toEqual(['Bearer its-own']);
  });

  test('values, expressions and snippets as LSP items: kinds, edits, snippet format', async () => {
    const root = tempSolution({
      'solution.yaml': 'name: s\nsettings:\n  custom:\n    region: emea\n',
      'functions/rest-get-customers.platform': FUNCTION.replace('‸', 'crm-key'),
    });
    const lsp = await startLsp(root);
    const fn = join(root, 'functions', 'rest-get-customers.platform');
    const method = await completeIn(
      lsp,
      fn,
      FUNCTION.replace('‸', 'crm-key').replace('method: GET', 'method: P‸'),
    );
    expect(method.map((i) => i.label)).toEqual(['DELETE', 'GET', 'HEAD', 'PUT', 'PATCH', 'POST']);
    expect(method[0]!.kind).toBe(20); // EnumMember
    const typed = 'outputTransform: =$.items[region = @ctx.solution.settings.custom.re';
    const expression = await completeIn(lsp, fn, `${FUNCTION.replace('‸', 'crm-key')}${typed}‸]\n`);
    expect(expression.map((i) => i.label)).toEqual(['region']);
    expect(expression[0]!.textEdit).toEqual({
      range: { start: { line: 9, character: typed.length - 2 }, end: { line: 9, character: typed.length } },
      newText: 'region',
    });
    const empty = await completeIn(lsp, join(root, 'functions', 'rest-new.platform'), '‸');
    expect(empty.map((i) => i.label)).toHaveLength(6);
    expect(empty[0]).toMatchObject({
      label: 'template: rest',
      kind: 15,
      insertTextFormat: InsertTextFormat.Snippet,
    });
    // LSP's snippet syntax, not a template literal.
    const $ = '$';
    expect(empty[0]!.insertText).toContain(`url: ${$}{1:https://api.example.com/items}`);
  });
});
