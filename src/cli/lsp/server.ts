import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createConnection,
  DiagnosticSeverity,
  type InitializeParams,
  type Diagnostic as LspDiagnostic,
  ProposedFeatures,
  TextDocumentSyncKind,
  TextDocuments,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from '../../definition/diagnostic.js';
import { findSolutionRoot } from '../../definition/solution.js';
import { RestfnError } from '../../errors/restfn-error.js';
import { diagnosticRange } from '../../language/range.js';
import { LanguageService } from '../../language/service.js';
import type { FeatureContext } from './feature.js';
import { FEATURES } from './features.js';
import { readSolutionTexts, readText } from './solution-texts.js';
import { pathOf, uriOf } from './uri.js';

export interface ServerOptions {
  /** `--solution`: used instead of the editor's workspace folder. */
  readonly solution?: string;
  /** Milliseconds after the last change before the changed files are checked. */
  readonly delay: number;
}

/**
 * `restfn lsp`: the language service (src/language/) over LSP on stdio. Reads the solution once at
 * `initialize`; from then on the editor's texts of open files count, the disk's for the others.
 * Findings are published for the changed file and its dependants after `delay` of quiet, and for
 * every file of the solution on save. Resolves when the editor closes the connection.
 */
export function startServer(options: ServerOptions): Promise<void> {
  const connection = createConnection(ProposedFeatures.all, process.stdin, process.stdout);
  const documents = new TextDocuments(TextDocument);
  let service: LanguageService | undefined;
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  // Checks run one at a time, in order: a late answer never overwrites a newer one.
  let queue: Promise<void> = Promise.resolve();

  const publish = (paths: Iterable<string>) => {
    const wanted = [...paths];
    queue = queue.then(async () => {
      if (!service || wanted.length === 0) return;
      const found = await service.diagnostics(wanted);
      for (const [path, list] of found) {
        const text = service.text(path) ?? '';
        await connection.sendDiagnostics({
          uri: uriOf(path),
          diagnostics: list.map((d) => toLsp(d, text)),
        });
      }
    });
    queue = queue
      .catch(async (error: unknown) => {
        // The editor is told on the files it waits on (a client waiting for findings never hangs),
        // with restfn's code; an unexpected error's text goes to the log only.
        connection.console.error(`restfn lsp: ${String(error)}`);
        const known = error instanceof RestfnError;
        const message = known
          ? `restfn could not check this file: ${error.message}`
          : 'restfn could not check this file: an error it did not expect (see the "restfn" log)';
        for (const path of wanted)
          await connection.sendDiagnostics({
            uri: uriOf(path),
            diagnostics: [
              {
                range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
                severity: DiagnosticSeverity.Error,
                code: known ? error.code : 'INTERNAL',
                source: 'restfn',
                message,
              },
            ],
          });
      })
      .catch(() => undefined);
  };
  const schedule = (paths: Iterable<string>) => {
    for (const p of paths) pending.add(p);
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      const now = [...pending];
      pending.clear();
      publish(now);
    }, options.delay);
  };

  connection.onInitialize((params: InitializeParams) => {
    const root = solutionRoot(options.solution, workspaceFolder(params));
    service = new LanguageService(root, readSolutionTexts(root));
    return {
      capabilities: {
        textDocumentSync: {
          openClose: true,
          change: TextDocumentSyncKind.Incremental,
          save: { includeText: false },
        },
        ...Object.assign({}, ...FEATURES.map((f) => f.capabilities)),
      },
      serverInfo: { name: 'restfn' },
    };
  });

  documents.onDidChangeContent(({ document }) => {
    if (!service) return;
    schedule(service.setText(pathOf(document.uri), document.getText()));
  });
  documents.onDidClose(({ document }) => {
    if (!service) return;
    // Back to what the disk holds (an edit given up), or gone if it was never saved.
    const path = pathOf(document.uri);
    const text = readText(path);
    schedule(text === undefined ? service.remove(path) : service.setText(path, text));
  });
  documents.onDidSave(() => {
    if (!service) return;
    if (timer) clearTimeout(timer);
    timer = undefined;
    pending.clear();
    publish(
      service
        .solution()
        .files.map((f) => f.path)
        .concat(service.solution().settings?.path ?? []),
    );
  });

  const context: FeatureContext = { connection, documents, service: () => service, publish };
  for (const feature of FEATURES) feature.register(context);

  documents.listen(connection);
  const closed = new Promise<void>((done) => connection.onExit(() => done()));
  connection.listen();
  return closed.then(() => {
    if (timer) clearTimeout(timer);
  });
}

function toLsp(d: Diagnostic, text: string): LspDiagnostic {
  return {
    range: diagnosticRange(d, text),
    severity: d.severity === 'error' ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
    code: d.code,
    source: 'restfn',
    message: d.message,
  };
}

function workspaceFolder(params: InitializeParams): string | undefined {
  const uri = params.workspaceFolders?.[0]?.uri ?? params.rootUri;
  return uri?.startsWith('file:') ? fileURLToPath(uri) : (params.rootPath ?? undefined);
}

/** `--solution`, else the solution at or above the workspace folder (as the CLI finds it), else that folder. */
function solutionRoot(option: string | undefined, workspace: string | undefined): string {
  if (option) return resolve(option);
  const start = workspace ?? process.cwd();
  try {
    return findSolutionRoot(start);
  } catch {
    return resolve(start);
  }
}
