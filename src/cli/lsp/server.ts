import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createConnection,
  DiagnosticSeverity,
  DidChangeWatchedFilesNotification,
  FileChangeType,
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
import { removeStaleAnswers } from './result-document.js';
import { readSolutionTexts, readText } from './solution-texts.js';
import { pathOf, pathOrUndefined, uriOf } from './uri.js';

/** The files whose changes on disk the server is told of, when the editor watches files for it. */
const WATCHED = ['**/*.platform', '**/solution.yaml', '**/scripts/expressions/*.js'];

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
  removeStaleAnswers();
  const connection = createConnection(ProposedFeatures.all, process.stdin, process.stdout);
  const documents = new TextDocuments(TextDocument);
  let service: LanguageService | undefined;
  const pending = new Set<string>();
  let watch = false;
  let timer: NodeJS.Timeout | undefined;
  // Checks run one at a time, in order: a late answer never overwrites a newer one.
  let queue: Promise<void> = Promise.resolve();
  // Each open document's version whose text is the disk's (as opened, or as last saved).
  const clean = new Map<string, number>();

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

  /** Findings of files no longer in the solution: none (in turn, after any check under way). */
  const clear = (paths: readonly string[]) => {
    if (paths.length === 0) return;
    queue = queue
      .then(async () => {
        for (const path of paths) await connection.sendDiagnostics({ uri: uriOf(path), diagnostics: [] });
      })
      .catch(() => undefined);
  };
  const openDocuments = () => new Map(documents.all().map((d) => [pathOf(d.uri), d]));
  /** An open document is dropped when its file is gone unless it has unsaved changes. */
  const unsaved = (document: TextDocument | undefined) =>
    document !== undefined && clean.get(document.uri) !== document.version;

  /**
   * The disk read again for every file of the solution not open in the editor (new, changed,
   * deleted ones), and open documents without unsaved changes whose file is gone dropped. Returns
   * the paths whose findings may have changed; the dropped files' findings are cleared.
   */
  const refresh = (): Set<string> => {
    const s = service;
    const affected = new Set<string>();
    if (!s) return affected;
    const open = openDocuments();
    const disk = readSolutionTexts(s.root);
    for (const [path, text] of disk)
      if (!open.has(path) && s.text(path) !== text) for (const p of s.setText(path, text)) affected.add(p);
    const held = [
      ...s.solution().files.map((f) => f.path),
      ...(s.solution().settings ? [s.solution().settings!.path] : []),
      ...s.scriptTexts().keys(),
    ];
    const dropped: string[] = [];
    for (const path of held) {
      if (disk.has(path) || unsaved(open.get(path))) continue;
      // A file still there but unreadable: an open document keeps the editor's text.
      if (open.has(path) && existsSync(path)) continue;
      for (const p of s.remove(path)) affected.add(p);
      dropped.push(path);
    }
    for (const path of dropped) affected.delete(path);
    clear(dropped);
    return affected;
  };

  connection.onInitialize((params: InitializeParams) => {
    watch = params.capabilities?.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
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

  connection.onInitialized(() => {
    if (!watch) return;
    connection.client
      .register(DidChangeWatchedFilesNotification.type, {
        watchers: WATCHED.map((globPattern) => ({ globPattern })),
      })
      .catch((error: unknown) => connection.console.error(`restfn lsp: file watching: ${String(error)}`));
  });
  // Files created, changed or deleted on disk (a terminal's `restfn new`, a git checkout): the
  // disk's text counts for a file not open in the editor; an open one keeps the editor's text
  // (dropped when deleted without unsaved changes).
  connection.onDidChangeWatchedFiles(({ changes }) => {
    const s = service;
    if (!s || !Array.isArray(changes)) return;
    const open = openDocuments();
    const affected = new Set<string>();
    const dropped: string[] = [];
    for (const change of changes) {
      if (typeof change?.uri !== 'string') continue;
      // A uri that is no local path (`file://host/x`) is skipped; the rest of the batch still counts.
      const path = pathOrUndefined(change.uri);
      if (path === undefined || !s.kindOf(path)) continue;
      const text = change.type === FileChangeType.Deleted ? undefined : readText(path);
      if (open.has(path) && (text !== undefined || unsaved(open.get(path)))) continue;
      if (text === undefined) {
        if (s.text(path) === undefined) continue;
        for (const p of s.remove(path)) affected.add(p);
        dropped.push(path);
      } else if (s.text(path) !== text) for (const p of s.setText(path, text)) affected.add(p);
    }
    for (const path of dropped) affected.delete(path);
    clear(dropped);
    schedule(affected);
  });

  documents.onDidOpen(({ document }) => {
    clean.set(document.uri, document.version);
  });
  documents.onDidChangeContent(({ document }) => {
    if (!service) return;
    schedule(service.setText(pathOf(document.uri), document.getText()));
  });
  documents.onDidClose(({ document }) => {
    if (!service) return;
    // Back to what the disk holds (an edit given up), or gone if it was never saved.
    clean.delete(document.uri);
    const path = pathOf(document.uri);
    const text = readText(path);
    schedule(text === undefined ? service.remove(path) : service.setText(path, text));
  });
  documents.onDidSave(({ document }) => {
    if (!service) return;
    clean.set(document.uri, document.version);
    if (timer) clearTimeout(timer);
    timer = undefined;
    pending.clear();
    refresh();
    publish(
      service
        .solution()
        .files.map((f) => f.path)
        .concat(service.solution().settings?.path ?? []),
    );
  });

  const context: FeatureContext = { connection, documents, service: () => service, publish, refresh };
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
