import { existsSync } from 'node:fs';
import { loadSolution } from '../../definition/solution.js';
import { printable } from '../../errors/printable.js';
import { UsageError } from '../../errors/restfn-error.js';
import type { Command } from '../../local/command-queue.js';
import { DatabaseError } from '../../local/errors.js';
import { CommandFailedError } from '../../runtime/errors.js';
import type { PushResult } from '../../runtime/push.js';
import type { Runtime } from '../../runtime/runtime.js';
import { resolveIdPrefix } from '../id-prefix.js';
import { onInterrupt } from '../interrupt.js';
import { type Column, printRecord, printRows } from '../output.js';
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

/** `restfn queue [list]`. */
export async function list(options: QueueCliOptions): Promise<void> {
  const commands = await withRuntime(
    options,
    async (runtime) => runtime.queuedCommands(),
    () => [],
  );
  printRows(options.format, commands, QUEUE_COLUMNS, 'the queue is empty');
}

const QUEUE_COLUMNS: ReadonlyArray<Column<Command>> = [
  ['ID', (c) => c.id],
  ['STATE', (c) => c.state],
  ['TYPE', (c) => c.type],
  ['RECORD', (c) => (c.record === null ? (c.entity ?? '') : `${c.entity}/${c.record}`)],
  ['FUNCTION', (c) => c.function ?? ''],
  ['ATTEMPTS', (c) => c.attempts],
  ['NEXT', (c) => (c.state === 'waiting' ? (c.nextAttempt ?? '') : '')],
  ['ERROR', (c) => (c.error ? `${c.error.code}: ${c.error.message}` : '')],
];

/** `restfn queue push`: everything that may go, now (waiting commands included). */
export async function push(options: QueueCliOptions): Promise<void> {
  const interrupt = onInterrupt();
  try {
    const result = await withRuntime(
      options,
      async (runtime) => {
        if (options.verbose) runtime.on(trace);
        return runtime.pushQueue({
          ignoreSchedule: true,
          signal: interrupt.signal,
          onCommand: (o) => {
            const about = o.record === null ? `${o.entity}` : `${o.entity}/${o.record}`;
            const note = o.error ? `${o.error.code}: ${o.error.message}` : '';
            const said = o.state === 'done' ? `sent${note && `; warning: ${note}`}` : `${o.state}: ${note}`;
            process.stderr.write(`${printable(`restfn: ${o.id} ${o.type} ${about}: ${said}`)}\n`);
          },
        });
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
      throw new CommandFailedError(
        `${counted(failed.length, 'command')} failed for good (${failed[0]!.error?.code}: ${failed[0]!.error?.message}); ${one ? "it stays in the queue and holds back its record's" : "they stay in the queue and hold back their records'"} later commands: fix the cause, then 'restfn queue retry ${ids}' (or 'restfn queue delete ${ids}' to drop ${one ? 'it' : 'them'})`,
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
      const known = runtime.queuedCommands().map((c) => c.id);
      return runtime.changeQueue(
        TYPES[verb],
        ids.map((id) => resolveIdPrefix(id, known, 'command')),
      );
    },
    () => {
      throw new UsageError(
        `no command ${ids[0]} in the queue: nothing was ever queued in this solution`,
        'COMMAND_NOT_FOUND',
      );
    },
  );
  const said = { retry: 'queued again', delete: 'deleted', clear: 'cleared' }[verb];
  process.stderr.write(`restfn: ${said}: ${changed.join(', ')}\n`);
}
