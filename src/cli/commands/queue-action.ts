import { existsSync } from 'node:fs';
import { loadSolution } from '../../definition/solution.js';
import { printable } from '../../errors/printable.js';
import { UsageError } from '../../errors/restfn-error.js';
import type { Command } from '../../local/command-queue.js';
import { DatabaseError } from '../../local/errors.js';
import type { DefinitionState } from '../../runtime/action.js';
import { CommandFailedError } from '../../runtime/errors.js';
import type { PushResult } from '../../runtime/push.js';
import type { Runtime } from '../../runtime/runtime.js';
import { resolveIdPrefix } from '../id-prefix.js';
import { onInterrupt } from '../interrupt.js';
import { type Column, isJson, printRecord, printRows, warn } from '../output.js';
import { counted } from '../plural.js';
import { cliRuntime } from '../runtime.js';
import { solutionDir } from '../solution-dir.js';
import { databasePath, openStore } from '../store-path.js';
import { trace } from '../trace.js';
import type { QueueCliOptions } from './queue.js';

/**
 * The runtime over the solution's local database, closed after `work`. The database must exist: a
 * mistyped --db is an error, not a new empty queue; without --db, a solution where nothing was ever
 * queued has an empty queue (`empty`), and no file is made for it.
 */
async function withRuntime<T>(
  options: QueueCliOptions,
  work: (runtime: Runtime) => Promise<T>,
  empty: () => T,
) {
  const solution = loadSolution(solutionDir(options.solution));
  const file = databasePath(solution.root, options.db);
  if (!existsSync(file)) {
    if (options.db === undefined) return empty();
    throw new DatabaseError('DATABASE_NOT_FOUND', `no local database at ${file}: check the --db path`, file);
  }
  const store = openStore(solution.root, options.db);
  const runtime = await cliRuntime(solution, store, options);
  try {
    return await work(runtime);
  } finally {
    await runtime.close();
    store.close();
  }
}

type Listed = Command & { readonly definition: DefinitionState };

/** `restfn queue [list]`. */
export async function list(options: QueueCliOptions): Promise<void> {
  const commands = await withRuntime(
    options,
    async (runtime) =>
      runtime.queuedCommands().map((c): Listed => ({ ...c, definition: runtime.commandDefinition(c) })),
    () => [],
  );
  printRows(options.format, commands, QUEUE_COLUMNS, 'the queue is empty');
  const changed = commands.filter((c) => c.definition === 'changed');
  if (changed.length > 0 && !isJson(options.format))
    process.stderr.write(`restfn: ${rebuildAdvice(changed.map((c) => c.id))}\n`);
}

/** What to say about commands built from files that changed since. */
function rebuildAdvice(ids: readonly string[]): string {
  const one = ids.length === 1;
  return `${counted(ids.length, 'command')} ${one ? 'was' : 'were'} built from an older definition (the action's or the function's file changed since) and would send what ${one ? 'it' : 'they'} built then: 'restfn queue retry --rebuild ${ids.join(' ')}' builds ${one ? 'it' : 'them'} again from the current files`;
}

const QUEUE_COLUMNS: ReadonlyArray<Column<Listed>> = [
  ['ID', (c) => c.id],
  ['STATE', (c) => c.state],
  ['TYPE', (c) => c.type],
  ['RECORD', (c) => (c.record === null ? (c.entity ?? '') : `${c.entity}/${c.record}`)],
  ['FUNCTION', (c) => c.function ?? ''],
  ['ATTEMPTS', (c) => c.attempts],
  ['NEXT', (c) => (c.state === 'waiting' ? (c.nextAttempt ?? '') : '')],
  ['ERROR', (c) => (c.error ? `${c.error.code}: ${c.error.message}` : '')],
  // `changed`: built from files that changed since (queue retry --rebuild); blank when unknown.
  ['DEFINITION', (c) => (c.definition === 'unknown' ? '' : c.definition)],
];

/** `restfn queue push`: everything that may go, now (waiting commands included). */
export async function push(options: QueueCliOptions): Promise<void> {
  const interrupt = onInterrupt();
  try {
    // The failed commands built from files that changed since: said before they are retried.
    let changed: ReadonlySet<string> = new Set();
    const result = await withRuntime(
      options,
      async (runtime) => {
        if (options.verbose) runtime.on(trace);
        const pushed = await runtime.pushQueue({
          ignoreSchedule: true,
          signal: interrupt.signal,
          onCommand: (o) => {
            const about = o.record === null ? `${o.entity}` : `${o.entity}/${o.record}`;
            const note = o.error ? `${o.error.code}: ${o.error.message}` : '';
            const said = o.state === 'done' ? `sent${note && `; warning: ${note}`}` : `${o.state}: ${note}`;
            process.stderr.write(`${printable(`restfn: ${o.id} ${o.type} ${about}: ${said}`)}\n`);
          },
        });
        const failedIds = new Set(pushed.outcomes.filter((o) => o.state === 'failed').map((o) => o.id));
        changed = new Set(
          runtime
            .queuedCommands()
            .filter((c) => failedIds.has(c.id) && runtime.commandDefinition(c) === 'changed')
            .map((c) => c.id),
        );
        return pushed;
      },
      () => ({ sent: 0, waiting: 0, failed: 0, remaining: 0, outcomes: [] }) satisfies PushResult,
    );
    const stopped =
      result.stopped === 'offline'
        ? '; stopped: the service could not be reached'
        : result.stopped === 'credentials'
          ? '; stopped: a credential is missing or needs a login'
          : '';
    process.stderr.write(
      `restfn: pushed: ${result.sent} sent, ${result.waiting} waiting, ${result.failed} failed; ${result.remaining} left in the queue${stopped}\n`,
    );
    const report = {
      sent: result.sent,
      waiting: result.waiting,
      failed: result.failed,
      remaining: result.remaining,
      ...(result.stopped ? { stopped: result.stopped } : {}),
    };
    printRecord(options.format, report, [
      ['SENT', (r) => r.sent],
      ['WAITING', (r) => r.waiting],
      ['FAILED', (r) => r.failed],
      ['REMAINING', (r) => r.remaining],
      ['STOPPED', (r) => r.stopped],
    ]);
    const failed = result.outcomes.filter((o) => o.state === 'failed');
    if (failed.length > 0) {
      const ids = failed.map((o) => o.id).join(' ');
      const one = failed.length === 1;
      // Built from files that changed since: a plain retry would send the same broken request.
      const rebuild = failed.some((o) => changed.has(o.id)) ? ' --rebuild' : '';
      throw new CommandFailedError(
        `${counted(failed.length, 'command')} failed for good (${failed[0]!.error?.code}: ${failed[0]!.error?.message}); ${one ? "it stays in the queue and holds back its record's" : "they stay in the queue and hold back their records'"} later commands: fix the cause, then 'restfn queue retry${rebuild} ${ids}'${rebuild ? ' (the definition changed since it was built: --rebuild builds it again from the current files)' : ''} (or 'restfn queue delete ${ids}' to drop ${one ? 'it' : 'them'})`,
        failed[0]!.id,
      );
    }
  } finally {
    interrupt.dispose();
  }
}

const TYPES = {
  retry: 'action.retry-queue-command',
  delete: 'action.delete-queue-command',
  clear: 'action.clear-queue',
} as const;

/** `restfn queue retry|delete|clear ID...`: all ids are checked before any changes. */
export async function change(
  verb: keyof typeof TYPES,
  ids: string[],
  options: QueueCliOptions,
): Promise<void> {
  const changed = await withRuntime(
    options,
    async (runtime) => {
      // A unique start of an id will do, as in git.
      const commands = runtime.queuedCommands();
      const known = commands.map((c) => c.id);
      const resolved = ids.map((id) => resolveIdPrefix(id, known, 'command'));
      if (verb === 'retry' && options.rebuild) return runtime.rebuildCommands(resolved);
      const changed = runtime.changeQueue(TYPES[verb], resolved);
      if (verb === 'retry') {
        const stale = commands.filter(
          (c) => resolved.includes(c.id) && runtime.commandDefinition(c) === 'changed',
        );
        if (stale.length > 0) warn(rebuildAdvice(stale.map((c) => c.id)));
      }
      return changed;
    },
    () => {
      throw new UsageError(
        `no command ${ids[0]} in the queue: nothing was ever queued in this solution`,
        'COMMAND_NOT_FOUND',
      );
    },
  );
  const said = {
    retry: options.rebuild ? 'rebuilt from the current files and queued again' : 'queued again',
    delete: 'deleted',
    clear: 'cleared',
  }[verb];
  process.stderr.write(`restfn: ${said}: ${changed.join(', ')}\n`);
}
