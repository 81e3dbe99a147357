import { readNames, syncPlan } from '../../../definition/datasource-reads.js';
import type { Solution, SourceFile } from '../../../definition/solution.js';
import { validateSolution } from '../../../definition/validate.js';
import { DefinitionError } from '../../../errors/definition-error.js';
import { UsageError } from '../../../errors/restfn-error.js';
import { COMMAND_QUEUE_TABLE } from '../../../local/stage.js';
import { InputRequiredError } from '../../../runtime/errors.js';
import { datasourceValue } from '../../../runtime/sync.js';
import { counted } from '../../plural.js';
import { cliRuntime } from '../../runtime.js';
import { openStore } from '../../store-path.js';
import { blockingErrors } from '../../sync-plan.js';

/** What a Sync from the editor answers: each datasource synced (the asked one last), as `restfn sync --format json` says it. */
export interface SyncAnswer {
  readonly datasources: ReadonlyArray<{
    readonly datasource: string;
    readonly entities: ReadonlyArray<{ entity: string; function: string; pages: number; records: number }>;
    readonly rows: number | null;
  }>;
  /** In a sync of every datasource: those not synced, and why (their errors, a screen's input). */
  readonly skipped?: ReadonlyArray<{ readonly datasource: string; readonly reason: string }>;
}

/**
 * `restfn.sync NAME`: `restfn sync NAME` over the editor's texts; no name: every datasource, as
 * `restfn sync` (one with errors, or reading a screen's input, is skipped and said, the others
 * sync): the local database
 * (`<solution>/.restfn/local.db`) filled the same way: the command queue pushed first, the
 * datasources it reads synced before it, each refused when its own files have errors. A datasource
 * that reads a screen's inputs cannot be synced from here (no inputs): INPUT_REQUIRED, as the CLI.
 */
export async function syncDatasource(solution: Solution, name: string | undefined): Promise<SyncAnswer> {
  const all = solution.files.filter((f) => f.kind === 'datasource').map((f) => f.name);
  if (name !== undefined && !all.includes(name))
    throw new UsageError(`datasource '${name}' does not exist in this solution`, 'DATASOURCE_NOT_FOUND');
  const { diagnostics } = await validateSolution(solution);
  const asked = name === undefined ? all : [name];
  const order = syncPlan(solution, asked).order ?? asked;
  const skipped = new Map<string, string>();
  for (const n of order) {
    const errors = blockingErrors(solution, n, diagnostics);
    if (errors.length === 0) continue;
    if (name === undefined) skipped.set(n, `${counted(errors.length, 'error')}, fix them first`);
    else
      throw new DefinitionError(
        `datasource '${n}' has ${counted(errors.length, 'error')}; fix them first, nothing was synced`,
        errors,
      );
  }
  const read = readNames(solution, order);
  const store = openStore(solution.root, undefined);
  const runtime = await cliRuntime(solution, store, {}, () => {});
  const datasources: Record<string, unknown> = {};
  const answers: Array<SyncAnswer['datasources'][number]> = [];
  try {
    if (store.hasTable(COMMAND_QUEUE_TABLE)) await runtime.pushQueue();
    for (const n of order) {
      if (skipped.has(n)) continue;
      // A datasource reading one not synced would run that one again.
      const unsynced = [...readNames(solution, [n])].find((r) => skipped.has(r));
      if (unsynced !== undefined) {
        skipped.set(n, `reads datasource ${unsynced}, not synced`);
        continue;
      }
      const result = await runtime
        .sync(n, {
          pushFirst: false,
          context: { inputs: {}, jig: { inputs: {} }, datasources: { ...datasources } },
        })
        .catch((error: unknown) => {
          // Named, the error is the answer; in a sync of everything that datasource waits for a screen.
          if (name !== undefined || !(error instanceof InputRequiredError)) throw error;
          skipped.set(n, `reads input ${error.inputs.join(', ')}: sync it from a terminal with --input`);
          return undefined;
        });
      if (result === undefined) continue;
      const file = solution.files.find(
        (f) => f.kind === 'datasource' && f.name === n,
      ) as SourceFile<'datasource'>;
      if (read.has(n)) datasources[n] = datasourceValue(store, file, result);
      answers.push({
        datasource: n,
        entities: result.entities.map((e) => ({
          entity: e.entity,
          function: e.function,
          pages: e.pages,
          records: e.records,
        })),
        rows: result.rows?.length ?? null,
      });
    }
  } finally {
    await runtime.close();
    store.close();
  }
  return {
    datasources: answers,
    ...(skipped.size > 0
      ? { skipped: [...skipped].map(([datasource, reason]) => ({ datasource, reason })) }
      : {}),
  };
}
