import type { SyncEntitiesAction } from '../../definition/schema/index.js';
import type { QueueEngine } from '../push.js';
import { syncFunction } from '../sync.js';
import { type Evaluator, values } from './step-context.js';
import type { ActionOptions, ActionResult, Scope } from './types.js';

/**
 * `action.sync-entities`: each entity's function runs and its result fills the local table, as a
 * datasource sync does (scope fields, operations, continuation, rows with queued changes kept). Each
 * table is committed when its function finished, in order: a later failure leaves the earlier
 * tables synced, as a screen's refresh would. A bare entity name makes the table only.
 */
export async function syncEntities(
  engine: QueueEngine,
  name: string,
  step: SyncEntitiesAction,
  ev: Evaluator,
  scope: Scope,
  options: ActionOptions,
): Promise<ActionResult> {
  const synced: Array<{ entity: string; function?: string; pages: number; records: number }> = [];
  for (const [i, entry] of step.options.entities.entries()) {
    if (typeof entry === 'string' || entry.function === undefined) {
      const entity = typeof entry === 'string' ? entry : entry.entity;
      engine.store.ensureTable(entity);
      synced.push({ entity, pages: 0, records: 0 });
      continue;
    }
    const key = entry.functionParameters !== undefined ? 'functionParameters' : 'parameters';
    const parameters = await values(entry[key], ['options', 'entities', i, key], ev);
    const result = await syncFunction(engine, entry.entity, entry.function, parameters, scope.context, {
      ...(options.signal ? { signal: options.signal } : {}),
    });
    synced.push({
      entity: result.entity,
      function: result.function,
      pages: result.pages,
      records: result.records,
    });
  }
  return { action: name, type: step.type, synced };
}
