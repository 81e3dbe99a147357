import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, test } from 'vitest';
import {
  CodeActionRequest,
  CodeLensRequest,
  DidChangeTextDocumentNotification,
  ExecuteCommandRequest,
  type ShowDocumentParams,
  ShowDocumentRequest,
  ShowMessageNotification,
  type ShowMessageParams,
  type TextEdit,
  WorkDoneProgress,
} from 'vscode-languageserver-protocol/node';
import { MASK } from '../../src/http/sensitive.js';
import { applyEdits } from '../../src/language/text-edit.js';
import { runCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';
import { type LspClient, openDocument, startLsp } from '../helpers/lsp-client.js';
import { startPlatformProcess } from '../helpers/platform.js';
import { tempSolution } from '../helpers/temp-solution.js';

// `restfn lsp`'s commands and quick fixes through a real LSP client: a Run against a real HTTP
// server with a credential from a real local store, a Sync into a real SQLite file, a Publish to a
// real `restfn serve`, code lenses and a quick fix applied and re-validated.

const API_KEY = 'ak_7Qm2ZpX9vLr4TbN8wKd3';

const LIST = (url: string) => `# Customers of the CRM, one page.
provider: DATA_PROVIDER_REST
method: GET
url: ${url}/customers
parameters:
  region:
    location: query
    type: string
    value: eu
  apiKey:
    location: query
    type: secret
    value: crm-key
records: $.items
`;

const GET_ONE = (url: string) => `provider: DATA_PROVIDER_REST
method: GET
url: ${url}/customers/{id}
parameters:
  id:
    location: path
    type: string
    required: true
`;

const DATASOURCE = `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: customers
      function: list-customers
  query: SELECT id, data FROM [customers]
`;

/** The CRM: answers with the key it got echoed back (so the masking of answers is seen to work). */
async function crm() {
  return testServer((req, res) => {
    const key = new URL(req.url, 'http://x').searchParams.get('apiKey');
    if (key !== API_KEY) return json(res, 401, { error: 'bad key' });
    json(res, 200, {
      items: [
        { id: 'c-1', name: 'Ada' },
        { id: 'c-2', name: 'Grace' },
      ],
      echo: key,
    });
  });
}

/** A solution whose local store holds the CRM's key (stored by the real `restfn credentials set`). */
async function solution(url: string) {
  const root = tempSolution({
    'solution.yaml': 'name: crm\n',
    'functions/list-customers.platform': LIST(url),
    'functions/get-customer.platform': GET_ONE(url),
    'datasources/customers.platform': DATASOURCE,
  });
  const env = { XDG_CONFIG_HOME: join(root, 'config') };
  const stored = await runCli(['credentials', 'set', 'crm-key', '--kind', 'secret'], {
    cwd: root,
    env,
    input: `${API_KEY}\n`,
  });
  expect(stored.code, stored.stderr).toBe(0);
  return { root, env };
}

/** The server's messages and the documents it asks to show, as they come. */
function record(lsp: LspClient) {
  const messages: ShowMessageParams[] = [];
  const documents: ShowDocumentParams[] = [];
  lsp.client.onNotification(ShowMessageNotification.type, (m) => {
    messages.push(m);
  });
  lsp.client.onRequest(ShowDocumentRequest.type, (p) => {
    documents.push(p);
    return { success: true };
  });
  return { messages, documents };
}

function execute(lsp: LspClient, command: string, args: unknown[] = []) {
  return lsp.client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
}

describe('restfn lsp commands', { timeout: 60_000 }, () => {
  test('Run: the request carries the stored credential; the answer and the document shown hold it masked', async () => {
    const server = await crm();
    const { root, env } = await solution(server.url);
    const lsp = await startLsp(root, { env });
    const seen = record(lsp);
    const answer = (await execute(lsp, 'restfn.run', ['list-customers'])) as {
      status: number;
      request: string;
      output: { id: string; name: string }[] | unknown;
      document: string;
    };
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.url).toBe(`/customers?region=eu&apiKey=${API_KEY}`);
    expect(answer.status).toBe(200);
    expect(answer.request).toBe(`GET ${server.url}/customers?region=eu&apiKey=${encodeURIComponent(MASK)}`);
    // The service echoed the key: the answer shows it masked, as the platform's answers do.
    expect(answer.output).toEqual({
      items: [
        { id: 'c-1', name: 'Ada' },
        { id: 'c-2', name: 'Grace' },
      ],
      echo: MASK,
    });
    // The document: the answer as JSON, in a file the editor was asked to open.
    expect(seen.documents.map((d) => d.uri)).toEqual([answer.document]);
    expect(existsSync(fileURLToPath(answer.document)), lsp.stderr()).toBe(true);
    const shown = readFileSync(fileURLToPath(answer.document), 'utf8');
    expect(JSON.parse(shown)).toEqual({
      function: 'list-customers',
      status: 200,
      request: answer.request,
      output: answer.output,
    });
    expect(seen.messages.map((m) => m.message)).toEqual([
      `restfn: Run list-customers: 200 (the answer: ${fileURLToPath(answer.document)})`,
    ]);
    for (const text of [JSON.stringify(answer), shown, JSON.stringify(seen), lsp.stderr()])
      expect(text).not.toContain(API_KEY);
    // The document lives as long as the server, also one killed (SIGTERM) rather than stopped.
    await lsp.kill('SIGTERM');
    expect(existsSync(fileURLToPath(answer.document))).toBe(false);
    expect(existsSync(dirname(fileURLToPath(answer.document)))).toBe(false);
  });

  test('Run of a function with a required parameter and no default: a coded error, nothing sent', async () => {
    const server = await crm();
    const { root, env } = await solution(server.url);
    const lsp = await startLsp(root, { env });
    const seen = record(lsp);
    const failed = await execute(lsp, 'restfn.run', ['get-customer']).then(
      () => undefined,
      (error: { code: number; message: string; data: unknown }) => error,
    );
    expect(failed?.data).toEqual({ code: 'PARAMETER_REQUIRED' });
    expect(failed?.message).toContain("'id'");
    expect(failed?.message).toContain('restfn run get-customer -p id=VALUE');
    expect(server.requests).toHaveLength(0);
    expect(failed?.message).toMatch(/^missing required parameter 'id': Run from the editor gives/);
    expect(seen.messages).toEqual([
      { type: 1, message: `restfn: Run: PARAMETER_REQUIRED: ${failed!.message}` },
    ]);
    // From VS Code's palette: `{ uri }` of the current file names the function.
    const file = (p: string) => [{ uri: pathToFileURL(join(root, p)).href }];
    const byUri = await execute(lsp, 'restfn.run', file('functions/get-customer.platform')).catch((e) => e);
    expect([byUri.data, byUri.message]).toEqual([failed!.data, failed!.message]);
    const notAFunction = await execute(lsp, 'restfn.run', file('datasources/customers.platform')).catch(
      (e) => e,
    );
    expect(notAFunction.data).toEqual({ code: 'USAGE' });
    expect(notAFunction.message).toContain('this one is a datasource');
    // A uri that is no local path: the argument is wrong (USAGE), not a bug of the server.
    const otherHost = await execute(lsp, 'restfn.run', [{ uri: 'file://host/x' }]).catch((e) => e);
    expect(otherHost.data).toEqual({ code: 'USAGE' });
    expect(server.requests).toHaveLength(0);
  });

  test('Sync fills the local SQLite database as restfn sync does', async () => {
    const server = await crm();
    const { root, env } = await solution(server.url);
    const lsp = await startLsp(root, { env });
    const seen = record(lsp);
    // Progress, when the editor gives a token for it.
    const progress: string[] = [];
    lsp.client.onProgress(WorkDoneProgress.type, 'sync-1', (p) => {
      progress.push(p.kind === 'begin' ? `begin ${p.title}` : p.kind);
    });
    const answer = await lsp.client.sendRequest(ExecuteCommandRequest.type, {
      command: 'restfn.sync',
      arguments: ['customers'],
      workDoneToken: 'sync-1',
    });
    expect(progress).toEqual(['begin restfn: Sync', 'end']);
    expect(answer).toEqual({
      datasources: [
        {
          datasource: 'customers',
          entities: [{ entity: 'customers', function: 'list-customers', pages: 1, records: 2 }],
          rows: 2,
        },
      ],
    });
    const db = new Database(join(root, '.restfn', 'local.db'), { readonly: true });
    const rows = db.prepare('SELECT id, data FROM customers ORDER BY id').all() as Array<{
      id: string;
      data: string;
    }>;
    db.close();
    expect(rows.map((r) => [r.id, JSON.parse(r.data).name])).toEqual([
      ['c-1', 'Ada'],
      ['c-2', 'Grace'],
    ]);
    expect(JSON.stringify(answer)).not.toContain(API_KEY);
    // Each datasource once, its records counted (its one entity has its name).
    expect(seen.messages.map((m) => m.message)).toEqual(['restfn: synced customers: 2 records']);
  });

  test('Sync with no argument syncs every datasource, as restfn sync does in a terminal', async () => {
    const server = await crm();
    const { root, env } = await solution(server.url);
    writeFileSync(
      join(root, 'datasources', 'everyone.platform'),
      DATASOURCE.replace('entity: customers', 'entity: people').replace('[customers]', '[people]'),
    );
    const lsp = await startLsp(root, { env });
    const seen = record(lsp);
    const answer = (await execute(lsp, 'restfn.sync')) as { datasources: Array<{ datasource: string }> };
    expect(answer.datasources.map((d) => d.datasource)).toEqual(['customers', 'everyone']);
    expect(seen.messages.map((m) => m.message)).toEqual([
      'restfn: synced customers: 2 records; everyone: 2 records (people 2 records)',
    ]);
    const db = new Database(join(root, '.restfn', 'local.db'), { readonly: true });
    const counts = ['customers', 'people'].map(
      (t) => (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n,
    );
    db.close();
    expect(counts).toEqual([2, 2]);
  });

  test('Publish sends the saved solution to the platform of RESTFN_SERVER and RESTFN_TOKEN', async () => {
    const platform = await startPlatformProcess();
    const { root, env } = await solution('https://crm.example.com');
    const lsp = await startLsp(root, {
      env: { ...env, RESTFN_SERVER: platform.url, RESTFN_TOKEN: platform.adminToken },
    });
    const seen = record(lsp);
    const answer = (await execute(lsp, 'restfn.publish')) as Record<string, unknown>;
    expect(answer).toMatchObject({
      solution: 'crm',
      version: 1,
      unchanged: false,
      files: 4,
      server: platform.url,
      findings: [],
    });
    const there = await platform.api('GET', '/api/v1/solutions/crm', { token: platform.adminToken });
    expect(there.status, there.text).toBe(200);
    expect(seen.messages.map((m) => m.message)).toEqual([
      `restfn: published solution 'crm' as version 1 on ${platform.url}`,
    ]);
    expect(JSON.stringify([answer, seen])).not.toContain(platform.adminToken);
  });

  test('Publish with no platform named: a coded error saying how to name one', async () => {
    const { root, env } = await solution('https://crm.example.com');
    const lsp = await startLsp(root, { env: { ...env, RESTFN_SERVER: '', RESTFN_TOKEN: '' } });
    const failed = await execute(lsp, 'restfn.publish').then(
      () => undefined,
      (error: { message: string; data: unknown }) => error,
    );
    expect(failed?.data).toEqual({ code: 'USAGE' });
    // What to do from an editor: there is no --server to pass.
    expect(failed?.message).toBe(
      "which platform? set the restfn.server.url setting (VS Code) or RESTFN_SERVER in the editor's environment, or run 'restfn login --server URL' in a terminal once",
    );
  });

  test('code lenses: Run and Publish above a function, Sync above a datasource, Validate on solution.yaml', async () => {
    const { root, env } = await solution('https://crm.example.com');
    const lsp = await startLsp(root, { env });
    const lenses = async (file: string) =>
      (
        await lsp.client.sendRequest(CodeLensRequest.type, {
          textDocument: { uri: pathToFileURL(join(root, file)).href },
        })
      )?.map((l) => [l.range.start.line, l.command?.title, l.command?.command, l.command?.arguments]);
    // Line 1: under the function's leading comment.
    expect(await lenses('functions/list-customers.platform')).toEqual([
      [1, '▶ Run', 'restfn.run', ['list-customers']],
      [1, 'Publish solution', 'restfn.publish', []],
    ]);
    expect(await lenses('datasources/customers.platform')).toEqual([
      [0, '⟳ Sync', 'restfn.sync', ['customers']],
    ]);
    expect(await lenses('solution.yaml')).toEqual([
      [0, '✓ Validate solution', 'restfn.validate', []],
      [0, 'Publish solution', 'restfn.publish', []],
    ]);
    expect(await execute(lsp, 'restfn.validate')).toEqual({ files: 4, errors: 0, warnings: 0 });
  });

  test('a quick fix through the client: applied, the file checked again, the finding gone', async () => {
    const { root, env } = await solution('https://crm.example.com');
    const lsp = await startLsp(root, { env });
    const path = join(root, 'datasources', 'customers.platform');
    const typo = DATASOURCE.replace('function: list-customers', 'function: list-custmers');
    const { uri, diagnostics } = await openDocument(lsp, path, typo);
    expect(diagnostics.map((d) => d.code)).toEqual(['UNKNOWN_FUNCTION']);
    const actions = await lsp.client.sendRequest(CodeActionRequest.type, {
      textDocument: { uri },
      range: diagnostics[0]!.range,
      context: { diagnostics },
    });
    expect(actions).toHaveLength(1);
    const action = actions![0] as {
      title: string;
      kind: string;
      diagnostics: unknown[];
      edit: { changes: Record<string, TextEdit[]> };
    };
    expect(action).toMatchObject({ title: "Change to 'list-customers'", kind: 'quickfix', diagnostics });
    const edits = action.edit.changes[uri]!;
    expect(edits).toEqual([{ range: diagnostics[0]!.range, newText: 'list-customers' }]);
    const fixed = lsp.diagnostics(uri);
    await lsp.client.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version: 2 },
      contentChanges: [{ text: applyEdits(typo, edits) }],
    });
    expect((await fixed).diagnostics).toEqual([]);
  });

  test('store this literal credential: the value leaves the file, the command to store it is shown without it', async () => {
    const { root, env } = await solution('https://crm.example.com');
    const lsp = await startLsp(root, { env });
    const seen = record(lsp);
    const path = join(root, 'functions', 'list-customers.platform');
    const literal = LIST('https://crm.example.com').replace(
      '    type: secret\n    value: crm-key',
      `    type: string\n    value: ${API_KEY}`,
    );
    const { uri, diagnostics } = await openDocument(lsp, path, literal);
    expect(diagnostics.map((d) => d.code)).toEqual(['LITERAL_CREDENTIAL']);
    const actions = (await lsp.client.sendRequest(CodeActionRequest.type, {
      textDocument: { uri },
      range: diagnostics[0]!.range,
      context: { diagnostics },
    })) as Array<{
      title: string;
      edit: { changes: Record<string, TextEdit[]> };
      command: { command: string; arguments: string[] };
    }>;
    expect(actions.map((a) => [a.title, a.command])).toEqual([
      [
        "Store this credential as 'api-key' (then run: restfn credentials set api-key --kind secret --origin https://crm.example.com)",
        {
          title: 'Show the command to run',
          command: 'restfn.showCommand',
          arguments: ['restfn credentials set api-key --kind secret --origin https://crm.example.com'],
        },
      ],
      // The local store's credential (its key read from the store, never its value).
      ["Use the stored credential 'crm-key' (its value replaces this one)", undefined],
    ]);
    const reused = applyEdits(literal, actions[1]!.edit.changes[uri]!);
    expect(reused).toContain('  apiKey:\n    location: query\n    type: secret\n    value: crm-key\n');
    const after = applyEdits(literal, actions[0]!.edit.changes[uri]!);
    expect(after).toContain('  apiKey:\n    location: query\n    type: secret\n    value: api-key\n');
    const fixed = lsp.diagnostics(uri);
    await lsp.client.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version: 2 },
      contentChanges: [{ text: after }],
    });
    expect((await fixed).diagnostics).toEqual([]);
    // The editor runs the action's command once the edit is made.
    await execute(lsp, actions[0]!.command.command, actions[0]!.command.arguments);
    expect(seen.messages.map((m) => m.message)).toEqual([
      'restfn: run this in a terminal (the value is asked at the prompt, never written in the file): restfn credentials set api-key --kind secret --origin https://crm.example.com',
    ]);
    expect(JSON.stringify([actions, after, seen])).not.toContain(API_KEY);
  });
});
