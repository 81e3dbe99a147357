import type { Query } from '../definition/schema/index.js';
import type { PropertyPath } from '../definition/yaml-file.js';
import { RestfnError } from '../errors/restfn-error.js';
import { QueryError } from '../local/errors.js';
import { runQuery } from '../local/queries.js';
import type { LocalStore } from '../local/store.js';

export type Evaluate = (path: PropertyPath, raw: unknown) => Promise<unknown>;
export type Fail = (path: PropertyPath, message: string) => Error;

/**
 * Runs a function's queries, each after its `dependencies`, filling `results` (the object behind
 * @ctx.queries) as it goes so later queries' parameters can read earlier results. On a continuation
 * page, queries with `onContinuation: false` keep their result from the previous page.
 */
export async function runQueries(
  store: LocalStore,
  queries: Readonly<Record<string, Query>>,
  results: Record<string, unknown>,
  evaluate: Evaluate,
  fail: Fail,
  previous?: Readonly<Record<string, unknown>>,
): Promise<void> {
  const state = new Map<string, 'running' | 'done'>();
  const run = async (name: string): Promise<void> => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'running')
      throw new RestfnError('QUERY_CYCLE', `query dependencies form a cycle at '${name}'`);
    state.set(name, 'running');
    const query = queries[name]!;
    for (const dep of query.dependencies ?? []) await run(dep);
    if (previous && query.onContinuation === false && name in previous) {
      results[name] = previous[name];
    } else {
      const parameters: Record<string, unknown> = {};
      for (const [param, raw] of Object.entries(query.parameters ?? {})) {
        parameters[param] = await evaluate(['queries', name, 'parameters', param], raw);
      }
      const jsonColumns = await columnList(
        query.jsonColumns,
        ['queries', name, 'jsonColumns'],
        evaluate,
        fail,
      );
      try {
        results[name] = runQuery(store, query.statement, parameters, query.resultType, jsonColumns);
      } catch (error) {
        // Which of the function's queries failed: the statement alone may not say.
        if (error instanceof QueryError)
          throw new QueryError(`query '${name}': ${error.message}`, { cause: error });
        throw error;
      }
    }
    state.set(name, 'done');
  };
  for (const name of Object.keys(queries)) await run(name);
}

/** `jsonColumns` as written (a list) or computed (an expression giving a list, or one name). */
async function columnList(
  written: Query['jsonColumns'],
  path: PropertyPath,
  evaluate: Evaluate,
  fail: Fail,
): Promise<string[]> {
  if (written === undefined) return [];
  if (Array.isArray(written)) return written;
  const value = await evaluate(path, written);
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  if (!list.every((c) => typeof c === 'string')) {
    throw fail(path, 'jsonColumns must give a list of column names (texts)');
  }
  return list;
}
