import { readNames, syncPlan } from '../../definition/datasource-reads.js';
import { loadSolution, type Solution, type SourceFile } from '../../definition/solution.js';
import { validateSolution } from '../../definition/validate.js';
import { DefinitionError } from '../../errors/definition-error.js';
import { UsageError } from '../../errors/restfn-error.js';
import { COMMAND_QUEUE_TABLE } from '../../local/stage.js';
import { InputRequiredError } from '../../runtime/errors.js';
import { endedPaging } from '../../runtime/paginate.js';
import { type DatasourceResult, datasourceValue, type EntitySync } from '../../runtime/sync.js';
import { codedError } from '../coded-error.js';
import { diagnosticLine } from '../diagnostic-line.js';
import { InterruptedError } from '../errors.js';
import { onInterrupt } from '../interrupt.js';
import { isJson, printReport, warn } from '../output.js';
import { parseParameters } from '../parameters.js';
import { counted } from '../plural.js';
import { progressReporter } from '../progress.js';
import { cliRuntime } from '../runtime.js';
import { solutionDir } from '../solution-dir.js';
import { openStore } from '../store-path.js';
import { blockingErrors } from '../sync-plan.js';
import { interruptedSummary } from '../sync-summary.js';
import { trace } from '../trace.js';
import type { SyncOptions } from './sync.js';

/** `restfn sync` (loaded when the command runs; its options are in sync.ts). */
export async function sync(names: string[], options: SyncOptions): Promise<void> {
  const solution = loadSolution(solutionDir(options.solution));
  const { diagnostics } = await validateSolution(solution);
  const all = solution.files.filter((f) => f.kind === 'datasource').map((f) => f.name);
  const inputs = parseParameters(options.input ?? [], undefined, '--input');
  // The datasources read by others run first (and are run when only their readers are named);
  // a cycle is blocked by its validation errors (DATASOURCE_CYCLE), so it keeps the order asked.
  const asked = names.length > 0 ? names : all;
  const plan = syncPlan(
    solution,
    asked.filter((n) => all.includes(n)),
  );
  const wanted = plan.order ? [...plan.order, ...asked.filter((n) => !all.includes(n))] : asked;
  const read = readNames(solution, wanted);
  const datasources: Record<string, unknown> = {};
  const store = openStore(solution.root, options.db);
  const runtime = await cliRuntime(solution, store, options);
  if (options.verbose) runtime.on(trace);
  const progress = progressReporter({ verbose: options.verbose === true });
  const interrupt = onInterrupt();
  const done: string[] = [];
  const blocked: string[] = [];
  // Not synced for want of an input (or of a datasource not synced for that): name -> why.
  const skipped = new Map<string, string>();
  const printed = new Set<string>();
  let current: string | undefined;
  const json = isJson(options.format);
  const reports: unknown[] = [];
  try {
    // Local changes go out first, once, so the pulls bring them back as the service applied them.
    const queued = store.hasTable(COMMAND_QUEUE_TABLE)
      ? await runtime.pushQueue({ signal: interrupt.signal })
      : undefined;
    if (queued && queued.outcomes.length + queued.remaining > 0) {
      process.stderr.write(
        `restfn: pushed the command queue first: ${queued.sent} sent, ${queued.remaining} left in the queue${queued.failed > 0 ? ` (${queued.failed} failed: 'restfn queue list' shows why)` : ''}${queued.remaining > 0 ? '; their rows keep the local changes until sent or deleted' : ''}\n`,
      );
    }
    for (const name of wanted) {
      if (interrupt.interrupted) break;
      // Errors in other files do not stop this datasource; its own (or its functions') do.
      const errors = blockingErrors(solution, name, diagnostics);
      if (errors.length > 0) {
        for (const line of errors.map((d) => diagnosticLine(d))) {
          if (!printed.has(line)) process.stderr.write(`${line}\n`);
          printed.add(line);
        }
        process.stderr.write(`restfn: ${name}: not synced: ${counted(errors.length, 'error')} above\n`);
        blocked.push(name);
        continue;
      }
      // A datasource reading one that was not synced for want of an input would run that one again.
      const unsynced = [...readNames(solution, [name])].find((r) => skipped.has(r));
      if (unsynced !== undefined) {
        skipped.set(name, `reads datasource ${unsynced}, not synced (${skipped.get(unsynced)})`);
        process.stderr.write(`restfn: ${name}: not synced: ${skipped.get(name)}\n`);
        continue;
      }
      current = name;
      const started = performance.now();
      const result = await runtime
        .sync(name, {
          pushFirst: false,
          context: { inputs, jig: { inputs }, datasources: { ...datasources } },
          allowPartial: options.allowPartial === true,
          onProgress: progress.update,
          signal: interrupt.signal,
          commitPerEntity: options.commitPerEntity === true,
          // Said as it happens: when a later entity fails, the ones before it stay committed.
          ...(options.commitPerEntity
            ? { onCommitted: (e: EntitySync) => process.stderr.write(`restfn: committed: ${describe(e)}\n`) }
            : {}),
        })
        .catch((error: unknown) => {
          const page = endedPaging(error);
          if (page !== undefined && !interrupt.interrupted) {
            progress.clear();
            process.stderr.write(
              `restfn: ${name}: not synced: paging ended after page ${page - 1}, before the service's data did; the tables are as they were (--allow-partial keeps the pages before it)\n`,
            );
          }
          throw error;
        })
        .catch((error: unknown) => {
          if (!(error instanceof InputRequiredError) || interrupt.interrupted) throw error;
          progress.clear();
          const give = error.inputs.map((i) => `--input ${i}=VALUE`).join(' ');
          const reads = `reads input ${error.inputs.join(', ')}`;
          // Named, the input is the caller's to give; in a sync of everything, the screens' inputs
          // are not known: that datasource waits for them, the others sync.
          if (names.length > 0)
            throw new UsageError(
              `${error.datasource} ${reads}, not given: give it with ${give}`,
              'INPUT_REQUIRED',
            );
          skipped.set(name, reads);
          process.stderr.write(`restfn: ${name}: not synced: ${reads}; give it with ${give}\n`);
          return undefined;
        });
      progress.clear();
      current = undefined;
      if (result === undefined) continue;
      if (read.has(name)) datasources[name] = datasourceValue(store, datasourceFile(solution, name), result);
      // Resolved means committed, even when Ctrl-C came in the meantime.
      done.push(name);
      const seconds = Number(((performance.now() - started) / 1000).toFixed(1));
      const definition = datasourceFile(solution, name).definition;
      const queried = definition?.type === 'datasource.sqlite' && definition.options.query !== undefined;
      const rows =
        result.rows === undefined
          ? ''
          : `, ${queried ? 'query returns' : 'gives'} ${counted(result.rows.length, 'row')}`;
      const commits = result.committedPerEntity ? ', committed per entity' : '';
      // The summary is the command's data: a line per datasource as it is done, or JSON at the end.
      if (json) reports.push(report(result, seconds));
      else
        process.stdout.write(
          `${name}: ${result.entities.map(describe).join('; ') || 'no functions'}${rows}${commits} (${seconds.toFixed(1)} s)\n`,
        );
      for (const entity of result.entities) {
        // A clean end, but worth a look: a service that ignores the page counter ends this way too.
        if (entity.stopped === 'repeated-page')
          warn(
            `${entity.entity}: page ${entity.pages + 1} repeated page ${entity.pages} exactly, taken as the end of the data (if the service has more, is the continuation's cursor or counter one it reads?)`,
          );
        if (entity.error !== undefined) {
          const { code, message } = codedError(entity.error);
          warn(
            `${entity.entity}: partial (--allow-partial): kept ${counted(entity.pages, 'page')}, then ${code}: ${message}`,
          );
        }
      }
      if (interrupt.interrupted) break;
    }
  } catch (error) {
    if (!interrupt.interrupted) throw error;
  } finally {
    progress.clear();
    interrupt.dispose();
    await runtime.close();
    store.close();
    // What was synced is data even when the command then fails (Ctrl-C, a blocked datasource).
    if (json) printReport('json', reports, String);
  }
  if (interrupt.interrupted) {
    throw new InterruptedError(
      interruptedSummary(
        done,
        current,
        wanted,
        [...blocked, ...skipped.keys()],
        options.commitPerEntity === true,
      ),
    );
  }
  if (blocked.length > 0) {
    throw new DefinitionError(
      `${blocked.map((b) => `'${b}'`).join(', ')} not synced because of the errors above (the others were); fix them and sync again ('restfn validate' lists them)`,
      diagnostics,
    );
  }
}

/** A datasource's summary as `--format json` gives it. */
function report(result: DatasourceResult, seconds: number): unknown {
  const entities = result.entities.map(({ error, ...e }) => {
    if (error === undefined) return e;
    const { code, message } = codedError(error);
    return { ...e, error: { code, message } };
  });
  return {
    datasource: result.datasource,
    entities,
    rows: result.rows?.length ?? null,
    committedPerEntity: result.committedPerEntity,
    seconds,
  };
}

function describe(e: EntitySync): string {
  const pages = counted(e.pages, 'page');
  const note = e.stopped === 'skipped' ? ' (skipped)' : e.error !== undefined ? ' (partial)' : '';
  return `${e.entity} <- ${e.function}: ${pages}, ${counted(e.records, 'record')}${note}`;
}

function datasourceFile(solution: Solution, name: string): SourceFile<'datasource'> {
  return solution.files.find((f) => f.kind === 'datasource' && f.name === name) as SourceFile<'datasource'>;
}
