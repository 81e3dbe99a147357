import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { onTestFinished } from 'vitest';
import {
  type ClientCapabilities,
  createProtocolConnection,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  type PublishDiagnosticsParams,
  type Registration,
  RegistrationRequest,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node';
import { CLI } from './cli.js';

// `restfn lsp` as an editor runs it: the built CLI as a subprocess, a real LSP client over stdio.
// No sleeps: each step waits for the notification it expects.

export type LspClient = Awaited<ReturnType<typeof startLsp>>;

/**
 * Starts `restfn lsp --stdio` on a solution (extra arguments and environment optional; `entry`:
 * another script for node to run as the server, with its leading arguments, e.g. the .vsix's); the
 * client, and the findings as they arrive by file. Stopped when the test ends.
 */
export async function startLsp(
  root: string,
  options: {
    args?: string[];
    env?: NodeJS.ProcessEnv;
    entry?: string[];
    /** What the client says it can do (none by default). */
    capabilities?: ClientCapabilities;
  } = {},
) {
  const entry = options.entry ?? [CLI, 'lsp'];
  const child = spawn(process.execPath, [...entry, '--stdio', '--delay', '0', ...(options.args ?? [])], {
    cwd: root,
    env: { ...process.env, ...options.env },
  });
  let stderr = '';
  child.stderr.on('data', (c) => {
    stderr += c;
  });
  const client = createProtocolConnection(
    new StreamMessageReader(child.stdout),
    new StreamMessageWriter(child.stdin),
  );
  const waiting: Array<{
    uri: string;
    accept: (p: PublishDiagnosticsParams) => boolean;
    done: (p: PublishDiagnosticsParams) => void;
  }> = [];
  client.onNotification(PublishDiagnosticsNotification.type, (p) => {
    for (const w of [...waiting])
      if (w.uri === p.uri && w.accept(p)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.done(p);
      }
  });
  // What the server registers dynamically (client/registerCapability), accepted.
  const registrations: Registration[] = [];
  let registered: () => void = () => {};
  client.onRequest(RegistrationRequest.type, (params) => {
    registrations.push(...params.registrations);
    registered();
  });
  client.listen();
  const exited = new Promise<number | null>((done) => child.on('close', done));
  onTestFinished(async () => {
    if (child.exitCode === null) child.kill();
    await exited;
  });
  await client.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    rootUri: pathToFileURL(root).href,
    capabilities: options.capabilities ?? {},
    workspaceFolders: [{ uri: pathToFileURL(root).href, name: 'shop' }],
  });
  await client.sendNotification(InitializedNotification.type, {});
  return {
    client,
    stderr: () => stderr,
    /** The server's dynamic registrations, once it has made one. */
    registrations(): Promise<Registration[]> {
      if (registrations.length > 0) return Promise.resolve(registrations);
      return new Promise((done) => {
        registered = () => done(registrations);
      });
    },
    /** The next findings published for `uri` that `accept` takes. */
    diagnostics(uri: string, accept: (p: PublishDiagnosticsParams) => boolean = () => true) {
      return new Promise<PublishDiagnosticsParams>((done) => waiting.push({ uri, accept, done }));
    },
    async stop() {
      await client.sendRequest(ShutdownRequest.type);
      await client.sendNotification(ExitNotification.type);
      return exited;
    },
    /** Ends the server with a signal (an editor killing it), and waits for it to be gone. */
    kill(signal: NodeJS.Signals) {
      child.kill(signal);
      return exited;
    },
  };
}

/** Opens a file in the server with this text, and waits for its first findings. */
export async function openDocument(lsp: LspClient, path: string, text: string, languageId = 'restfn') {
  const uri = pathToFileURL(path).href;
  const found = lsp.diagnostics(uri);
  await lsp.client.sendNotification(DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId, version: 1, text },
  });
  return { uri, diagnostics: (await found).diagnostics };
}
