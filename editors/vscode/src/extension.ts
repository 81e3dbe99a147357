import { readFileSync } from 'node:fs';
import { commands, type ExtensionContext, type LogOutputChannel, window, workspace } from 'vscode';
import {
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  TransportKind,
} from 'vscode-languageclient/node';
import { answerDocument, commandArguments, PALETTE_COMMANDS } from './command-answer.js';
import { type ServerLaunch, serverLaunch } from './server-launch.js';

// A thin client: it starts `restfn lsp` and forwards. Findings, completion, code lenses and the
// commands' work are the language server's (src/cli/lsp/ and src/language/ in restfn).

let client: LanguageClient | undefined;
let output: LogOutputChannel | undefined;

export async function activate(context: ExtensionContext): Promise<void> {
  output = window.createOutputChannel('restfn', { log: true });
  context.subscriptions.push(output);
  await commands.executeCommand('setContext', 'restfn.active', true);
  context.subscriptions.push(
    workspace.onDidChangeConfiguration(async (event) => {
      // The server's program and environment are fixed when it starts: a change restarts it.
      if (event.affectsConfiguration('restfn.path') || event.affectsConfiguration('restfn.server.url')) {
        await client?.stop();
        await start(context);
      }
    }),
  );
  await start(context);
}

export async function deactivate(): Promise<void> {
  await client?.stop();
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
  });
  output?.info(`restfn lsp from ${launch.from}`);
  const url = settings.get<string>('server.url') ?? '';
  const env = { ...process.env, ...(url ? { RESTFN_SERVER: url } : {}) };
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
        const active = window.activeTextEditor?.document.uri;
        const result = await next(command, commandArguments(args, active?.toString()));
        const answer = answerDocument(result);
        if (answer)
          await window.showTextDocument(await workspace.openTextDocument(answer), { preview: false });
        return result;
      },
    },
  };
  client = new LanguageClient('restfn', 'restfn', serverOptionsOf(launch, env), clientOptions);
  await client.start();
}

function serverOptionsOf(launch: ServerLaunch, env: NodeJS.ProcessEnv): ServerOptions {
  if (launch.kind === 'module')
    return { module: launch.module, args: launch.args, transport: TransportKind.stdio, options: { env } };
  return { command: launch.command, args: launch.args, transport: TransportKind.stdio, options: { env } };
}
