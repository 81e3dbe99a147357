// `restfn lsp` on a 1,000-file solution, through a real LSP client over stdio (as an editor runs it):
// - completion: the time from a completion request to its answer, of function names and of
//   `@ctx.` paths in an expression (target < 50 ms);
// - an edit's findings: from a didChange of one file to the findings published for it, with the
//   server's debounce at 0 (target < 200 ms);
// - incremental: that edit's time as a ratio to the same server checking the whole solution (a
//   save re-checks every file: the validator's own time on these files, in the same process, same
//   run). An edit re-checks the file and its dependants only, so the ratio stays far below 1.
// Figures lsp-completion-1000, lsp-completion-expression-1000, lsp-edit-1000, lsp-edit-incremental.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  CompletionRequest,
  createProtocolConnection,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  DidSaveTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node';
import { meets, printFigure, QUICK } from './figures.mjs';
import { median } from './lib.mjs';

const FUNCTIONS = Number(process.env.FUNCTIONS ?? 800);
const DATASOURCES = Number(process.env.DATASOURCES ?? 200);
const ROUNDS = Number(process.env.ROUNDS ?? (QUICK ? 10 : 40));
const SAVES = QUICK ? 2 : 5;

const root = mkdtempSync(join(tmpdir(), 'restfn-bench-lsp-'));
const cli = new URL('../dist/bin/restfn.js', import.meta.url).pathname;
const child = spawn(process.execPath, [cli, 'lsp', '--stdio', '--delay', '0'], {
  cwd: root,
  stdio: ['pipe', 'pipe', 'inherit'],
});
try {
  writeFileSync(join(root, 'solution.yaml'), 'name: bench\nsettings:\n  custom:\n    limit: 50\n');
  for (let i = 0; i < FUNCTIONS; i++) {
    const dir = join(root, 'functions', `group-${i % 20}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `rest-get-thing-${i}.platform`), functionFile(i));
  }
  mkdirSync(join(root, 'datasources'), { recursive: true });
  for (let i = 0; i < DATASOURCES; i++)
    writeFileSync(join(root, 'datasources', `things-${i}.platform`), datasourceFile(i));

  const client = createProtocolConnection(
    new StreamMessageReader(child.stdout),
    new StreamMessageWriter(child.stdin),
  );
  const waiting = new Map();
  let published = 0;
  client.onNotification(PublishDiagnosticsNotification.type, (p) => {
    published++;
    const w = waiting.get(p.uri);
    if (w) {
      waiting.delete(p.uri);
      w(p);
    }
  });
  client.listen();
  const findings = (uri) => new Promise((done) => waiting.set(uri, done));
  await client.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    rootUri: pathToFileURL(root).href,
    capabilities: {},
    workspaceFolders: [{ uri: pathToFileURL(root).href, name: 'bench' }],
  });
  await client.sendNotification(InitializedNotification.type, {});

  // The datasource being edited: open it, then type into its query and ask for completions.
  const ds = join(root, 'datasources', 'things-7.platform');
  const uri = pathToFileURL(ds).href;
  const first = findings(uri);
  await client.sendNotification(DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: 'restfn', version: 1, text: datasourceFile(7) },
  });
  await first;

  const completion = [];
  const edit = [];
  const expression = [];
  let version = 1;
  for (let round = 0; round < ROUNDS; round++) {
    // An edit that changes the function named (a typo every other round: findings differ).
    const text = datasourceFile(7, round % 2 === 0 ? 'rest-get-thing-7x' : 'rest-get-thing-7');
    const found = findings(uri);
    const started = performance.now();
    await client.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version: ++version },
      contentChanges: [{ text }],
    });
    const p = await found;
    edit.push(performance.now() - started);
    if ((round % 2 === 0) !== p.diagnostics.length > 0)
      throw new Error(`unexpected findings in round ${round}: ${JSON.stringify(p.diagnostics)}`);

    const asked = performance.now();
    const list = await client.sendRequest(CompletionRequest.type, {
      textDocument: { uri },
      position: { line: 5, character: '      function: rest-get-thing-'.length },
    });
    completion.push(performance.now() - asked);
    const items = Array.isArray(list) ? list : (list?.items ?? []);
    if (items.length < FUNCTIONS) throw new Error(`completion gave ${items.length} functions`);

    // Inside an expression: the context's paths after `@ctx.`.
    const inExpression = performance.now();
    const paths = await client.sendRequest(CompletionRequest.type, {
      textDocument: { uri },
      position: { line: 7, character: '        id: =@ctx.'.length },
    });
    expression.push(performance.now() - inExpression);
    const fields = (Array.isArray(paths) ? paths : (paths?.items ?? [])).map((i) => i.label);
    if (!fields.includes('user')) throw new Error(`@ctx. completion gave ${fields.join(', ')}`);
  }

  // The whole solution, checked by the same server: a save publishes findings for every file.
  const whole = [];
  const files = 1 + FUNCTIONS + DATASOURCES;
  for (let i = 0; i < SAVES; i++) {
    const before = published;
    const started = performance.now();
    await client.sendNotification(DidSaveTextDocumentNotification.type, { textDocument: { uri } });
    while (published - before < files) await new Promise((r) => setTimeout(r, 1));
    whole.push(performance.now() - started);
  }

  const c = median(completion);
  const x = median(expression);
  const e = median(edit);
  const w = median(whole);
  console.log(`restfn lsp on ${FUNCTIONS + DATASOURCES} files (${ROUNDS} rounds, medians)`);
  console.log(`  completion of function names: ${c.toFixed(1)} ms`);
  console.log(`  completion of @ctx. paths in an expression: ${x.toFixed(1)} ms`);
  console.log(`  an edit's findings: ${e.toFixed(1)} ms`);
  console.log(`  the whole solution checked (on save, ${SAVES} times): ${w.toFixed(0)} ms`);
  printFigure({
    id: 'lsp-completion-1000',
    label: `restfn lsp completion, ${FUNCTIONS + DATASOURCES} files`,
    ratio: c,
    unit: 'ms',
    target: '< 50',
    met: meets(c, '< 50'),
    detail: `median of ${ROUNDS}, max ${Math.max(...completion).toFixed(1)} ms`,
  });
  printFigure({
    id: 'lsp-completion-expression-1000',
    label: `restfn lsp completion of @ctx. paths, ${FUNCTIONS + DATASOURCES} files`,
    ratio: x,
    unit: 'ms',
    target: '< 50',
    met: meets(x, '< 50'),
    detail: `median of ${ROUNDS}, max ${Math.max(...expression).toFixed(1)} ms`,
  });
  printFigure({
    id: 'lsp-edit-1000',
    label: `restfn lsp, an edit to its findings, ${FUNCTIONS + DATASOURCES} files`,
    ratio: e,
    unit: 'ms',
    target: '< 200',
    met: meets(e, '< 200'),
    detail: `median of ${ROUNDS}, max ${Math.max(...edit).toFixed(1)} ms`,
  });
  const ratio = e / w;
  printFigure({
    id: 'lsp-edit-incremental',
    label: "restfn lsp, an edit's check / the whole solution's check",
    ratio,
    target: '<= 0.10',
    met: meets(ratio, '<= 0.10'),
    detail: `median ${e.toFixed(1)} ms vs ${w.toFixed(0)} ms`,
  });

  await client.sendRequest(ShutdownRequest.type);
  await client.sendNotification(ExitNotification.type);
} finally {
  if (child.exitCode === null) child.kill();
  rmSync(root, { recursive: true, force: true });
}

function functionFile(i) {
  return `provider: DATA_PROVIDER_REST
method: GET
url: https://api.example.com/things/{id}
parameters:
  id:
    location: path
    type: string
    required: true
  limit:
    location: query
    type: number
    value: =@ctx.solution.settings.custom.limit
outputTransform: '{ "id": id, "name": name, "count": $count(items) }'
forRowsWithMatchingIds: true
error:
  - when: =@ctx.response.status = 403
    title: Not allowed ${i}
  - when: =@ctx.response.status = 429
    retry:
      delay: 5000
      maxRetries: 3
`;
}

function datasourceFile(i, fn = `rest-get-thing-${i}`) {
  return `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: things_${i}
      function: ${fn}
      functionParameters:
        id: =@ctx.user.id
  query: SELECT id, data FROM [things_${i}]
`;
}
