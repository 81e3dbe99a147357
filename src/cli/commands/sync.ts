import type { Command } from 'commander';
import { addUserOptions, type UserOptions } from '../user-options.js';

export interface SyncOptions extends UserOptions {
  solution?: string;
  db?: string;
  commitPerEntity?: boolean;
  verbose?: boolean;
}

export function registerSync(program: Command): void {
  addUserOptions(
    program
      .command('sync')
      .description(
        'run datasources: fill their local tables from their functions (all datasources by default)',
      )
      .argument('[datasources...]', 'datasource names')
      .option('-s, --solution <dir>', 'solution folder (default: found from the current folder upward)')
      .option('--db <file>', 'local database file (default: <solution>/.restfn/local.db)')
      .option('-v, --verbose', 'a progress line per page, and requests and responses (credentials masked)')
      .option(
        '--commit-per-entity',
        "commit each entity as soon as it is synced (later entities' queries see it; a failure keeps the entities before it)",
      ),
  ).action(async (names: string[], options: SyncOptions) => {
    const { sync } = await import('./sync-action.js');
    await sync(names, options);
  });
}

/** What an interrupted sync kept: whole datasources (each one commit), or entities with --commit-per-entity. */
export function interruptedSummary(
  done: readonly string[],
  current: string | undefined,
  wanted: readonly string[],
  blocked: readonly string[] = [],
  perEntity = false,
): string {
  const during = perEntity
    ? 'the entities it finished before are kept (committed per entity), the interrupted one is as it was'
    : 'its tables are as they were before this sync';
  const parts = [
    current === undefined
      ? 'sync interrupted between datasources'
      : `sync interrupted during '${current}': ${during}`,
  ];
  parts.push(
    done.length > 0 ? `kept (synced in full): ${done.map((d) => `'${d}'`).join(', ')}` : 'nothing was synced',
  );
  const rest = wanted.filter((w) => !done.includes(w) && !blocked.includes(w) && w !== current);
  if (rest.length > 0) parts.push(`not started: ${rest.map((r) => `'${r}'`).join(', ')}`);
  return parts.join('; ');
}
