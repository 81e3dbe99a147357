import { describePath } from '../definition/schema-issues.js';
import type { SourceFile } from '../definition/solution.js';
import type { PropertyPath } from '../definition/yaml-file.js';
import { ExpressionError, type ExpressionErrorCode } from '../expression/errors.js';
import { type ExpressionEnv, evaluateExpression } from '../expression/evaluate.js';
import { ScriptError } from '../expression/scripts/errors.js';
import { expressionSource } from '../expression/source.js';
import { withNamedExpressions } from './named-expressions.js';

/**
 * Evaluates one value of a definition file: an `=` expression (or always-JSONata text) is evaluated,
 * anything else is returned as written. Failures name the file, the property path and the line and
 * column of the character JSONata stopped at.
 */
export async function evaluateField(
  file: SourceFile,
  path: PropertyPath,
  raw: unknown,
  input: unknown,
  context: unknown,
  env: ExpressionEnv,
  alwaysJsonata = false,
): Promise<unknown> {
  if (typeof raw !== 'string') return raw;
  const source = expressionSource(raw, alwaysJsonata);
  if (!source) return raw;
  // A named expression's failure is said at its place in solution.yaml (before this try).
  const named = await withNamedExpressions(source.body, context, env, (f, p, r, i, c) =>
    evaluateField(f, p, r, i, c, env),
  );
  const withBindings = named.bindings ? { ...env, functions: { ...env.functions, ...named.bindings } } : env;
  try {
    return await evaluateExpression(source.body, input, named.context, withBindings);
  } catch (error) {
    if (error instanceof ScriptError) {
      // Where the expression that called the script is, next to where the script failed.
      const at = file.yaml.locateInValue(path, source.offset);
      error.message = `${at.file}:${at.line}:${at.col} (${describePath(path)}): ${error.message}`;
      throw error;
    }
    if (!(error instanceof ExpressionError)) throw error;
    const at = file.yaml.locateInValue(path, source.offset + (error.index ?? 0));
    throw new ExpressionError(error.code as ExpressionErrorCode, error.detail, {
      ...(error.jsonataCode === undefined ? {} : { jsonataCode: error.jsonataCode }),
      ...(error.index === undefined ? {} : { index: error.index }),
      ...(error.limit === undefined ? {} : { limit: error.limit }),
      location: { file: at.file, path: describePath(path), line: at.line, col: at.col },
      cause: error.cause ?? error,
    });
  }
}

/** Evaluates a value of one file against one context (see `evaluateField`); `input` is `$`. */
export interface Field {
  (path: PropertyPath, raw: unknown, input: unknown, alwaysJsonata?: boolean): Promise<unknown>;
  /** An evaluation error at `path` (an expression gave a value of the wrong shape). */
  fail(path: PropertyPath, message: string): ExpressionError;
}

export function fieldsOf(file: SourceFile, ctx: unknown, env: ExpressionEnv): Field {
  const field = (path: PropertyPath, raw: unknown, input: unknown, alwaysJsonata = false) =>
    evaluateField(file, path, raw, input, ctx, env, alwaysJsonata);
  return Object.assign(field, {
    fail(path: PropertyPath, message: string) {
      const at = file.yaml.locate(path);
      return new ExpressionError('EXPRESSION_EVALUATION', message, {
        location: { file: at.file, path: describePath(path), line: at.line, col: at.col },
      });
    },
  });
}
