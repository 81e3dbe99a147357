import type { FunctionDefinition, Operation } from '../definition/schema/index.js';
import type { PropertyPath } from '../definition/yaml-file.js';
import { isTruthy } from '../expression/evaluate.js';
import { isExpression } from '../expression/source.js';
import { applyConversions } from '../local/conversions.js';
import { decideScope, type ResolveScopeValue, scopeResolver } from '../local/scope.js';
import { RecordIdError, type StagedRow, type StagedWrite, toRow } from '../local/stage.js';
import { conversionList } from './conversion-list.js';
import type { Engine, Execution } from './engine.js';
import { type Field, fieldsOf } from './field.js';

/**
 * What one page of a sync writes, as staged writes: the scope deletion (first page only), then the
 * records, or the function's operations, or (when the guard stopped the function) the guard's
 * operations. Expressions are evaluated here; the stage only sees values.
 */
export async function planWrites(
  engine: Engine,
  execution: Execution,
  entity: string,
  firstPage: boolean,
): Promise<StagedWrite[]> {
  try {
    return await pageWrites(engine, execution, entity, firstPage);
  } catch (error) {
    if (error instanceof RecordIdError) {
      error.message = `function '${execution.file.name}' (table '${entity}'): ${error.message}; pick a text or number id with the function's records or outputTransform, or an operation's primaryKey`;
    }
    throw error;
  }
}

async function pageWrites(
  engine: Engine,
  execution: Execution,
  entity: string,
  firstPage: boolean,
): Promise<StagedWrite[]> {
  const { file, ctx } = execution;
  const d = file.definition;
  const field = fieldsOf(file, ctx, engine.expressions);
  const convert: Convert = async (records, conversions, at) =>
    applyConversions(records, await conversionList(conversions, at, field, ctx), engine.files);
  const where: OperationScope = {
    entity,
    firstPage,
    field,
    ctx,
    convert,
    fn: d,
    now: () => engine.options.clock.now(),
  };
  const operations = (ops: readonly Operation[], at: PropertyPath, output: unknown, records: unknown[]) =>
    operationWrites(ops, at, output, records, where);

  if (execution.guardFailed)
    return operations(d.guard?.operations ?? [], ['guard', 'operations'], ctx.output, []);
  // A function its `when` skipped wrote nothing: the table stays as it is.
  if (execution.result.status === 'skipped') return [];
  const output = execution.result.status === 'ok' ? execution.result.output : undefined;
  const records = asList(
    d.records === undefined ? output : await field(['records'], d.records, output, true),
  );
  const scope = decideScope(d, await scopeValues(d, [], d, field, ctx));
  // Function-level conversions shape what the scope rules write; operations carry their own.
  if (d.conversions && scope.mode !== 'operations') await convert(records, d.conversions, ['conversions']);
  switch (scope.mode) {
    case 'replace':
    case 'delete-matching': {
      const writes: StagedWrite[] = [];
      if (firstPage) {
        const { values = [], ranges = [] } = scope.mode === 'delete-matching' ? scope : {};
        writes.push({ kind: 'delete', table: entity, values, ranges, keepTempIds: scope.keepTempIds });
      }
      writes.push({ kind: 'rows', table: entity, merge: false, rows: records.map((r) => toRow(r)) });
      return writes;
    }
    case 'merge':
      return [{ kind: 'rows', table: entity, merge: true, rows: records.map((r) => toRow(r)) }];
    case 'operations':
      return operations(d.operations ?? [], ['operations'], output, records);
  }
}

/** Writes for a list of operations outside a sync page: error-handler operations (spec 7.3). */
export async function planOperations(
  engine: Engine,
  file: Execution['file'],
  ctx: Execution['ctx'],
  operations: readonly Operation[],
  at: PropertyPath,
  defaultTable: string,
): Promise<StagedWrite[]> {
  const field = fieldsOf(file, ctx, engine.expressions);
  const convert: Convert = async (records, conversions, path) =>
    applyConversions(records, await conversionList(conversions, path, field, ctx), engine.files);
  return operationWrites(operations, at, ctx.output, [], {
    entity: defaultTable,
    firstPage: true,
    field,
    ctx,
    convert,
    fn: file.definition,
    now: () => engine.options.clock.now(),
  });
}

type Convert = (
  records: unknown[],
  conversions: NonNullable<FunctionDefinition['conversions']>,
  at: PropertyPath,
) => Promise<void>;

/** What every operation of a list shares: where it writes by default, and how it evaluates. */
interface OperationScope {
  /** The default table. */
  readonly entity: string;
  readonly firstPage: boolean;
  readonly field: Field;
  readonly ctx: Record<string, unknown>;
  readonly convert: Convert;
  readonly fn: FunctionDefinition;
  /** The runtime's clock: an operation's `timeStamp` is the time of its write. */
  readonly now: () => number;
}

async function operationWrites(
  operations: readonly Operation[],
  at: PropertyPath,
  output: unknown,
  records: readonly unknown[],
  scope: OperationScope,
): Promise<StagedWrite[]> {
  const { entity, firstPage, field, ctx, convert, fn, now } = scope;
  const writes: StagedWrite[] = [];
  for (const [i, op] of operations.entries()) {
    const path = [...at, i];
    if (op.when !== undefined && !isTruthy(await field([...path, 'when'], op.when, ctx))) continue;
    switch (op.type) {
      case 'operation.execute-sql':
        for (const [s, statement] of op.statements.entries()) {
          const spath = [...path, 'statements', s];
          writes.push({
            kind: 'sql',
            statement: String(await field([...spath, 'statement'], statement.statement, ctx)),
            parameters: await evaluateEach(statement.parameters, [...spath, 'parameters'], field, ctx),
            tables: op.tables ?? [],
          });
        }
        break;
      case 'operation.find-replace': {
        const find = await field([...path, 'find'], op.find, ctx);
        const replace = await field([...path, 'replace'], op.replace, ctx);
        // Nothing to find (an empty or absent value, e.g. a record without a temp id): a match on ''
        // would hit every row.
        if (find === undefined || find === null || find === '' || replace === undefined || replace === null)
          break;
        writes.push({
          kind: 'find-replace',
          find: String(find),
          replace: String(replace),
          tables: op.tables ?? [entity],
          includeCommandQueue: op.includeCommandQueue === true,
        });
        break;
      }
      default: {
        const table =
          op.table === undefined ? entity : String(await field([...path, 'table'], op.table, ctx));
        let opRecords: readonly unknown[] =
          op.records === undefined
            ? records
            : asList(await field([...path, 'records'], op.records, output, true));
        if (op.conversions) {
          // On a copy: records may be shared with other operations, which do not share conversions.
          const copy = structuredClone(opRecords) as unknown[];
          await convert(copy, op.conversions, [...path, 'conversions']);
          opRecords = copy;
        }
        let rows = await toRows(opRecords, op.primaryKey, [...path, 'primaryKey'], field, ctx);
        if (op.timeStamp !== undefined) {
          const column = String(await field([...path, 'timeStamp'], op.timeStamp, ctx));
          const at = new Date(now()).toISOString();
          rows = rows.map((row) => ({ ...row, data: { ...(row.data as object), [column]: at } }));
        }
        // delete-insert clears its scope (the whole table without one); upserts only a scope given.
        const scoped =
          Object.keys(op.forRowsWithValues ?? {}).length > 0 ||
          Object.keys(op.forRowsInRange ?? {}).length > 0;
        if (firstPage && (scoped || op.type === 'operation.delete-insert')) {
          const blocks = { forRowsWithValues: op.forRowsWithValues ?? {}, forRowsInRange: op.forRowsInRange };
          const scope = decideScope(blocks, await scopeValues(blocks, path, fn, field, ctx));
          const { values = [], ranges = [] } = scope.mode === 'delete-matching' ? scope : {};
          writes.push({ kind: 'delete', table, values, ranges, keepTempIds: false });
        }
        writes.push({ kind: 'rows', table, merge: op.type === 'operation.upsert-merge', rows });
      }
    }
  }
  return writes;
}

/**
 * How the scope values of `blocks` (at `at`) are read: expressions evaluated over the context,
 * names of the function's parameters by their values, the rest as literals.
 */
async function scopeValues(
  blocks: Pick<FunctionDefinition, 'forRowsWithValues' | 'forRowsInRange'>,
  at: PropertyPath,
  fn: FunctionDefinition,
  field: Field,
  ctx: Record<string, unknown>,
): Promise<ResolveScopeValue> {
  const evaluated = new Map<string, unknown>();
  const visit = async (written: unknown, path: PropertyPath) => {
    if (isExpression(written) && !evaluated.has(written as string))
      evaluated.set(written as string, await field(path, written, ctx));
  };
  for (const [column, value] of Object.entries(blocks.forRowsWithValues ?? {}))
    await visit(value, [...at, 'forRowsWithValues', column]);
  for (const [column, range] of Object.entries(blocks.forRowsInRange ?? {})) {
    await visit(range.from, [...at, 'forRowsInRange', column, 'from']);
    await visit(range.to, [...at, 'forRowsInRange', column, 'to']);
  }
  return scopeResolver(
    Object.keys(fn.parameters ?? {}),
    ctx.parameters as Record<string, unknown>,
    evaluated,
  );
}

/** Rows for records; `primaryKey` is evaluated per record with the record as @ctx.record. */
async function toRows(
  records: readonly unknown[],
  primaryKey: string | undefined,
  path: PropertyPath,
  field: Field,
  ctx: Record<string, unknown>,
): Promise<StagedRow[]> {
  if (primaryKey === undefined) return records.map((r) => toRow(r));
  const rows: StagedRow[] = [];
  for (const record of records) {
    ctx.record = record;
    rows.push(toRow(record, await field(path, primaryKey, record)));
  }
  ctx.record = undefined;
  return rows;
}

async function evaluateEach(
  parameters: unknown,
  path: PropertyPath,
  field: Field,
  ctx: unknown,
): Promise<unknown> {
  if (Array.isArray(parameters))
    return Promise.all(parameters.map((raw, i) => field([...path, i], raw, ctx)));
  if (parameters && typeof parameters === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, raw] of Object.entries(parameters)) out[k] = await field([...path, k], raw, ctx);
    return out;
  }
  return undefined;
}

/** The records of an output: an array as it is, nothing for null, anything else as one record. */
export function asList(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}
