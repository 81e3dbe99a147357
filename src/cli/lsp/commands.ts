import { fileURLToPath } from 'node:url';
import {
  type Connection,
  ErrorCodes,
  LSPErrorCodes,
  MessageType,
  ResponseError,
  ShowMessageNotification,
} from 'vscode-languageserver/node';
import { UsageError } from '../../errors/restfn-error.js';
import { COMMANDS, type CommandName } from '../../language/code-lenses.js';
import type { LanguageService } from '../../language/service.js';
import type { SyncAnswer } from './commands/sync-datasource.js';
import type { Feature, FeatureContext } from './feature.js';
import { pathOrUndefined } from './uri.js';

/**
 * `workspace/executeCommand`: Run, Sync, Validate solution, Publish (the lenses' commands, and an
 * editor's palette), each the library calls its CLI command makes, with the same masking; and
 * `restfn.showCommand`, a terminal command shown for the author (a quick fix's next step). An
 * answer is the command's result; Run's and Publish's are also shown as a document
 * (result-document.ts). A failure is an LSP error whose `data.code` is restfn's code, and an error
 * message. The heavy modules (runtime, HTTP, SQLite, platform client) load on a command's first use.
 */
export const commands: Feature = {
  capabilities: { executeCommandProvider: { commands: Object.values(COMMANDS) } },
  register(context) {
    context.connection.onExecuteCommand(async ({ command, arguments: given }, _token, progress) => {
      const args: readonly unknown[] = Array.isArray(given) ? given : [];
      const s = context.service();
      if (!s) return new ResponseError(ErrorCodes.ServerNotInitialized, 'restfn lsp is not initialized');
      const title = TITLES[command as CommandName] ?? command;
      progress.begin(`restfn: ${title}`);
      try {
        return await execute(command, args, s, context);
      } catch (error) {
        const { codedError } = await import('../coded-error.js');
        const { printable } = await import('../../errors/printable.js');
        const coded = codedError(error);
        const message = printable(coded.message);
        say(context.connection, MessageType.Error, `restfn: ${title}: ${coded.code}: ${message}`);
        return new ResponseError(LSPErrorCodes.RequestFailed, message, { code: coded.code });
      } finally {
        progress.done();
      }
    });
  },
};

const TITLES: Readonly<Record<CommandName, string>> = {
  'restfn.run': 'Run',
  'restfn.sync': 'Sync',
  'restfn.validate': 'Validate solution',
  'restfn.publish': 'Publish',
  'restfn.showCommand': 'Show command',
};

async function execute(
  command: string,
  args: readonly unknown[],
  service: LanguageService,
  { connection, publish, refresh }: FeatureContext,
): Promise<unknown> {
  switch (command) {
    case COMMANDS.run: {
      const name = nameArgument(command, args, 'function', service);
      const { runFunction } = await import('./commands/run-function.js');
      const answer = await runFunction(service.solution(), name);
      const document = await show(connection, `run-${name}`, answer);
      const said = answer.skipped ? `skipped: ${answer.skipped}` : `${answer.status ?? 'no request'}`;
      // The file's path too: an editor that does not open documents on request (Neovim 0.7) shows it.
      say(
        connection,
        MessageType.Info,
        `restfn: Run ${name}: ${said} (the answer: ${fileURLToPath(document)})`,
      );
      return { ...answer, document };
    }
    case COMMANDS.sync: {
      // No argument: every datasource, as `restfn sync` in a terminal.
      const name = args[0] == null ? undefined : nameArgument(command, args, 'datasource', service);
      const { syncDatasource } = await import('./commands/sync-datasource.js');
      const answer = await syncDatasource(service.solution(), name);
      say(connection, MessageType.Info, `restfn: ${syncSummary(answer)}`);
      return answer;
    }
    case COMMANDS.validate: {
      // As `restfn validate` sees the disk (files created, changed or deleted outside the editor).
      refresh();
      const found = await service.diagnostics();
      publish(found.keys());
      const all = [...found.values()].flat();
      const errors = all.filter((d) => d.severity === 'error').length;
      const answer = { files: found.size, errors, warnings: all.length - errors };
      say(
        connection,
        MessageType.Info,
        `restfn: ${answer.files} files checked: ${errors} errors, ${answer.warnings} warnings`,
      );
      return answer;
    }
    case COMMANDS.publish: {
      const { publishSolution } = await import('./commands/publish-solution.js');
      const answer = await publishSolution(service.root, process.env);
      const document = await show(connection, `publish-${answer.solution}`, answer);
      say(
        connection,
        MessageType.Info,
        `restfn: ${answer.unchanged ? `solution '${answer.solution}' is unchanged: version ${answer.version} stays current` : `published solution '${answer.solution}' as version ${answer.version}`} on ${answer.server}`,
      );
      return { ...answer, document };
    }
    case COMMANDS.showCommand: {
      const text = nameArgument(command, args, 'command');
      say(
        connection,
        MessageType.Info,
        `restfn: run this in a terminal (the value is asked at the prompt, never written in the file): ${text}`,
      );
      return { command: text };
    }
    default:
      throw new UsageError(
        `unknown command '${command}': restfn lsp runs ${Object.values(COMMANDS).join(', ')}`,
      );
  }
}

/**
 * The name a command is given: as it is (a lens's argument), or `{ uri }` of a file of that kind
 * (VS Code's palette sends the current file's): that file's function or datasource.
 */
function nameArgument(
  command: string,
  args: readonly unknown[],
  what: 'function' | 'datasource' | 'command',
  service?: LanguageService,
): string {
  const [given] = args;
  if (typeof given === 'string' && given !== '') return given;
  const uri = (given as { uri?: unknown } | null | undefined)?.uri;
  const path = typeof uri === 'string' ? pathOrUndefined(uri) : undefined;
  const file = path !== undefined ? service?.source(path) : undefined;
  if (file && file.kind === what) return file.name;
  throw new UsageError(
    `${command} takes the ${what}'s name${what === 'command' ? '' : `, or { uri } of its file (${file ? `this one is a ${file.kind}` : 'open one'})`} as its argument`,
  );
}

/** `synced customers: 2 records; orders: 5 records (orders 3 records, lines 2 records)`, and what was not. */
function syncSummary(answer: SyncAnswer): string {
  const records = (n: number) => `${n} record${n === 1 ? '' : 's'}`;
  const synced = answer.datasources.map((d) => {
    const total = d.entities.reduce((sum, e) => sum + e.records, 0);
    // Each entity is named when it is not the datasource's one entity of the same name.
    const each =
      d.entities.length > 1 || (d.entities.length === 1 && d.entities[0]!.entity !== d.datasource)
        ? ` (${d.entities.map((e) => `${e.entity} ${records(e.records)}`).join(', ')})`
        : '';
    return `${d.datasource}: ${d.entities.length === 0 ? 'no entities' : `${records(total)}${each}`}`;
  });
  const parts = [
    synced.length > 0 ? `synced ${synced.join('; ')}` : 'nothing synced',
    ...(answer.skipped ?? []).map((s) => `${s.datasource} not synced: ${s.reason}`),
  ];
  return parts.join('; ');
}

async function show(connection: Connection, name: string, answer: unknown): Promise<string> {
  const { showAnswer } = await import('./result-document.js');
  return showAnswer(connection, name, answer);
}

/** `window/showMessage`: a notification (the `window.show*Message` helpers ask a question, with buttons, and wait). */
function say(connection: Connection, type: MessageType, message: string): void {
  // A closed connection is no reason to end the server (an unhandled rejection would).
  connection.sendNotification(ShowMessageNotification.type, { type, message }).catch(() => {});
}
