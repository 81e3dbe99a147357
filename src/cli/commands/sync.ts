import type { Command } from 'commander';
import { formatDiagnostic } from '../../definition/diagnostic.js';
import { loadSolution } from '../../definition/solution.js';
import { filesUsedBy } from '../../definition/used-files.js';
import { validateSolution } from '../../definition/validate.js';
import { DefinitionError } from '../../errors/definition-error.js';
import type { EntitySync, SyncProgress } from '../../runtime/sync.js';
import { cliRuntime } from '../runtime.js';
import { solutionDir } from '../solution-dir.js';
import { openStore } from '../store-path.js';
import { addUserOptions, type UserOptions } from '../user-options.js';

interface Options extends UserOptions {
  solution?: string;
  db?: string;
  commitPerEntity?: boolean;
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
      .option(
        '--commit-per-entity',
        "commit each entity as soon as it is synced (later entities' queries see it; a failure keeps the entities before it)",
      ),
  ).action(async (names: string[], options: Options) => {
    const solution = loadSolution(solutionDir(options.solution));
    const all = solution.files.filter((f) => f.kind === 'datasource').map((f) => f.name);
    const targets = names.length > 0 ? names : all;
    // Only what these datasources read must be valid: a broken file elsewhere does not stop them.
    const only = filesUsedBy(solution, targets);
    const { diagnostics, errors } = await validateSolution(solution, { only });
    if (errors > 0) {
      for (const d of diagnostics) process.stderr.write(`${formatDiagnostic(d)}\n`);
      throw new DefinitionError(
        `the solution has ${errors} error(s); fix them first ('restfn validate')`,
        diagnostics,
      );
    }
    const store = openStore(solution.root, options.db);
    const runtime = cliRuntime(solution, store, options);
    const progress = progressReporter();
    try {
      for (const name of targets) {
        const started = performance.now();
        const result = await runtime.sync(name, {
          onProgress: progress.update,
          commitPerEntity: options.commitPerEntity === true,
        });
        progress.clear();
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        const rows = result.rows === undefined ? '' : `, query returns ${result.rows.length} rows`;
        const commits = result.committedPerEntity ? ', committed per entity' : '';
        process.stdout.write(
          `${name}: ${result.entities.map(describe).join('; ') || 'no functions'}${rows}${commits} (${seconds} s)\n`,
        );
        for (const entity of result.entities) {
          if (entity.stopped === 'page-cap' || entity.stopped === 'repeated-page') {
            process.stderr.write(`restfn: warning: ${entity.entity}: ${STOPS[entity.stopped]}\n`);
          }
        }
      }
    } finally {
      progress.clear();
      await runtime.close();
      store.close();
    }
  });
}

const STOPS = {
  'page-cap': 'stopped at the page cap (settings.sync.maxPages) while the service still offered more pages',
  'repeated-page':
    'stopped because a page repeated the previous one exactly (is the continuation url or counter advancing?)',
} as const;

function describe(e: EntitySync): string {
  const pages = `${e.pages} page${e.pages === 1 ? '' : 's'}`;
  return `${e.entity} <- ${e.function}: ${pages}, ${e.records} records${e.stopped === 'skipped' ? ' (skipped)' : ''}`;
}

/** On a terminal, one line redrawn in place; elsewhere nothing until the summary. */
function progressReporter() {
  const tty = process.stderr.isTTY === true;
  const started = performance.now();
  let shown = false;
  return {
    update(p: SyncProgress) {
      if (!tty) return;
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      process.stderr.write(`\r${p.entity}: page ${p.pages}, ${p.records} records, ${seconds} s\u001b[K`);
      shown = true;
    },
    clear() {
      if (shown) process.stderr.write('\r\u001b[K');
      shown = false;
    },
  };
}
