import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { loadSolution } from '../../src/definition/solution.js';
import { LocalStore } from '../../src/local/store.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { recordingClock } from './clock.js';
import { tempSolution } from './temp-solution.js';

/** A runtime with a real SQLite file in a temporary solution; both closed when the test ends. */
export function syncSetup(
  files: Record<string, string>,
  maxPages?: number,
): { runtime: Runtime; store: LocalStore; root: string } {
  const root = tempSolution(files);
  const store = new LocalStore(join(root, '.restfn', 'local.db'));
  const runtime = createRuntime(loadSolution(root, { displayBase: root }), {
    store,
    clock: recordingClock(),
    ...(maxPages ? { maxPages } : {}),
  });
  onTestFinished(async () => {
    await runtime.close();
    store.close();
  });
  return { runtime, store, root };
}

/** A datasource file filling `entity` from `fn` with the given parameters. */
export function datasource(
  entity: string,
  fn: string,
  parameters: Record<string, unknown> = {},
  query?: string,
): string {
  const params = Object.entries(parameters)
    .map(([k, v]) => `        ${k}: ${JSON.stringify(v)}\n`)
    .join('');
  return `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: ${entity}
      function: ${fn}
${params ? `      functionParameters:\n${params}` : ''}${query ? `  query: ${JSON.stringify(query)}\n` : ''}`;
}

/** A datasource file filling several tables, each from its function, in the given order. */
export function datasourceOf(entities: Record<string, string>): string {
  const list = Object.entries(entities)
    .map(([entity, fn]) => `    - entity: ${entity}\n      function: ${fn}\n`)
    .join('');
  return `type: datasource.sqlite\noptions:\n  provider: DATA_PROVIDER_LOCAL\n  entities:\n${list}`;
}

/** Rows already in a table before the test acts: each row's `id` is its row id. */
export function seed(store: LocalStore, table: string, rows: Array<Record<string, unknown>>): void {
  store.ensureTable(table);
  const insert = store.db.prepare(`INSERT INTO [${table}] (id, data) VALUES (?, ?)`);
  for (const row of rows) insert.run(String(row.id), JSON.stringify(row));
}
