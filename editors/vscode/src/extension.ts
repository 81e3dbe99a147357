import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { commands, type ExtensionContext, type LogOutputChannel, window, workspace } from 'vscode';
import {
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  TransportKind,
} from 'vscode-languageclient/node';
import { answerDocument, commandArguments, PALETTE_COMMANDS } from './command-answer.js';
import { findOnPath, type ServerLaunch, serverEnv, serverLaunch } from './server-launch.js';

// A thin client: it starts `restfn lsp` and forwards. Findings, completion, code lenses and the
// commands' work are the language server's (src/cli/lsp/ and src/language/ in restfn).

let client: LanguageClient | undefined;
let output: LogOutputChannel | undefined;
/** The last file editor focused: a command run while its answer's untitled document is in front still names it. */
let lastFile: string | undefined;

export async function activate(context: ExtensionContext): Promise<void> {
  output = window.createOutputChannel('restfn', { log: true });
  context.subscriptions.push(output);
  await commands.executeCommand('setContext', 'restfn.active', true);
  const noteFile = (uri: { scheme: string; toString(): string } | undefined) => {
    if (uri?.scheme === 'file') lastFile = uri.toString();
  };
  noteFile(window.activeTextEditor?.document.uri);
  context.subscriptions.push(window.onDidChangeActiveTextEditor((editor) => noteFile(editor?.document.uri)));
  context.subscriptions.push(
    workspace.onDidChangeConfiguration(async (event) => {
      // The server's program and environment are fixed when it starts: a change restarts it.
      if (event.affectsConfiguration('restfn.path') || event.affectsConfiguration('restfn.server.url')) {
        await client?.stop().catch(() => undefined);
        await start(context);
      }
    }),
  );
  await start(context);
}

export async function deactivate(): Promise<void> {
  await client?.stop().catch(() => undefined);
  client = undefined;
}

async function start(context: ExtensionContext): Promise<void> {
  const settings = workspace.getConfiguration('restfn');
  const launch = serverLaunch({
    folder: workspace.workspaceFolders?.[0]?.uri.fsPath,
    path: settings.get<string>('path') ?? '',
    bundled: context.asAbsolutePath('dist/server/bin/lsp.js'),
    readPackage: (file) => {
      try {
        return readFileSync(file, 'utf8');
      } catch {
        return undefined;
      }
    },
    onPath: findOnPath(
      'restfn',
      process.env.PATH,
      executable,
      process.platform === 'win32',
      process.env.PATHEXT,
    ),
  });
  output?.info(`restfn lsp from ${launch.from}`);
  const url = settings.get<string>('server.url') ?? '';
  const env = serverEnv(process.env, url);
  const clientOptions: LanguageClientOptions = {
    // The server judges a file by its path (functions/, datasources/, actions/, solution.yaml).
    documentSelector: [
      { scheme: 'file', language: 'restfn' },
      { scheme: 'file', pattern: '**/solution.yaml' },
    ],
    outputChannel: output,
    middleware: {
      executeCommand: async (command, args, next) => {
        if (!PALETTE_COMMANDS.includes(command)) return next(command, args);
        const result = await next(command, commandArguments(args, lastFile));
        const answer = answerDocument(result);
        if (answer)
          await window.showTextDocument(await workspace.openTextDocument(answer), { preview: false });
        return result;
      },
    },
  };
  client = new LanguageClient('restfn', 'restfn', serverOptionsOf(launch, env), clientOptions);
  try {
    await client.start();
  } catch (error) {
    // Most often `node` is not on VS Code's PATH, or restfn.path names no program.
    const message = error instanceof Error ? error.message : String(error);
    output?.error(`restfn lsp from ${launch.from} did not start: ${message}`);
    void window.showErrorMessage(
      `restfn lsp did not start (${message}). Set restfn.path to a restfn executable, or see the "restfn" output.`,
    );
  }
}

function serverOptionsOf(launch: ServerLaunch, env: NodeJS.ProcessEnv): ServerOptions {
  if (launch.kind === 'module')
    return { module: launch.module, args: launch.args, transport: TransportKind.stdio, options: { env } };
  return {
    command: launch.command,
    args: launch.args,
    transport: TransportKind.stdio,
    options: { env, ...(launch.shell ? { shell: true } : {}) },
  };
}

function executable(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    if (process.platform !== 'win32') accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
