import type { Command } from 'commander';

/**
 * `--json FIELDS` and `--expr EXPR` for the commands whose stdout is one JSON value (`run`,
 * `query`, `action`), after gh's `--json fields --jq`: `--json a,b` keeps those top-level fields
 * (of each row, for a list), `--json` alone lists the fields there are, and `--expr` evaluates a
 * JSONata expression on what is left with restfn's own `evaluate()` (the language the definitions
 * use; docs/decisions.md says why not jq). A text result prints bare, as `gh --jq` does.
 */
export interface OutputFilter {
  /** `--json`: a comma list of fields, or `true` (given with no list). */
  json?: string | true;
  expr?: string;
}

export function addOutputFilter(command: Command): Command {
  return command
    .option(
      '--json [fields]',
      'keep these top-level fields of the JSON output (comma list); alone: list the fields',
    )
    .option(
      '--expr <expression>',
      'print what this JSONata expression gives of the output ($ is the output)',
    );
}

/** The top-level fields of `value`: an object's keys, or those of every object in a list (first seen first). */
export function fieldsOf(value: unknown): string[] {
  const rows = Array.isArray(value) ? value : [value];
  const fields = new Set<string>();
  for (const row of rows)
    if (row !== null && typeof row === 'object' && !Array.isArray(row))
      for (const key of Object.keys(row)) fields.add(key);
  return [...fields];
}

/** `value` with only `fields` (of each row, for a list), in the order asked; a field a row lacks is `null`. */
export function selectFields(value: unknown, fields: readonly string[]): unknown {
  const pick = (row: unknown) =>
    row !== null && typeof row === 'object' && !Array.isArray(row)
      ? Object.fromEntries(fields.map((f) => [f, (row as Record<string, unknown>)[f] ?? null]))
      : row;
  return Array.isArray(value) ? value.map(pick) : pick(value);
}

/** Prints the command's JSON output as the filter asks (without one: as it is, indented). */
export async function printFiltered(value: unknown, filter: OutputFilter): Promise<void> {
  const { UsageError } = await import('../errors/restfn-error.js');
  let shown = value;
  if (filter.json === true) {
    // Like gh: the fields there are, one a line, instead of the output.
    const fields = fieldsOf(value);
    if (fields.length === 0)
      throw new UsageError(
        '--json: the output has no fields to pick (it is not an object or a list of objects)',
      );
    process.stdout.write(`${fields.join('\n')}\n`);
    process.stderr.write(`restfn: pick some with --json ${fields.slice(0, 2).join(',')}\n`);
    return;
  }
  if (typeof filter.json === 'string') {
    const asked = filter.json
      .split(',')
      .map((f) => f.trim())
      .filter((f) => f !== '');
    const known = fieldsOf(value);
    const unknown = asked.filter((f) => !known.includes(f));
    if (asked.length === 0 || unknown.length > 0) {
      throw new UsageError(
        `--json: ${asked.length === 0 ? 'name the fields' : `no field ${unknown.map((f) => `'${f}'`).join(', ')} in the output`}; the fields are: ${known.join(', ') || '(none)'}`,
      );
    }
    shown = selectFields(value, asked);
  }
  if (filter.expr !== undefined) {
    const [{ evaluate }, { ExpressionError }] = await Promise.all([
      import('../expression/evaluate.js'),
      import('../expression/errors.js'),
    ]);
    try {
      shown = await evaluate(filter.expr, shown);
    } catch (error) {
      // The expression is the caller's, typed on the command line: a usage error, not a definition's.
      if (error instanceof ExpressionError) throw new UsageError(`--expr: ${error.detail}`);
      throw error;
    }
    if (typeof shown === 'string') {
      process.stdout.write(`${shown}\n`);
      return;
    }
  }
  process.stdout.write(`${JSON.stringify(shown, null, 2) ?? 'null'}\n`);
}
