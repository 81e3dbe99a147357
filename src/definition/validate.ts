import { compareDiagnostics, type Diagnostic } from './diagnostic.js';
import { bodyOnGet } from './rules/body.js';
import { literalCredential, localCallCredential } from './rules/credentials.js';
import { expressionSyntax } from './rules/expressions.js';
import { handlerMatchesSuccess } from './rules/handlers.js';
import { fileName, functionId, uniqueName } from './rules/naming.js';
import { deprecatedKeys, parameterLocation } from './rules/parameters.js';
import { queryDependencies } from './rules/queries.js';
import { functionReferences, guardCycle } from './rules/references.js';
import { type FunctionRule, reporterFor, type ValidFunction } from './rules/reporter.js';
import { scopeConflict, scopeParameters } from './rules/scope.js';
import { pathParameters, urlQuery } from './rules/url.js';
import type { Solution, SourceFile } from './solution.js';

/** Rules over one function that passed the schema. Naming rules run on every function file. */
const FUNCTION_RULES: FunctionRule[] = [
  functionId,
  uniqueName,
  parameterLocation,
  pathParameters,
  urlQuery,
  bodyOnGet,
  scopeConflict,
  scopeParameters,
  queryDependencies,
  literalCredential,
  localCallCredential,
  handlerMatchesSuccess,
  deprecatedKeys,
];

export interface ValidationResult {
  readonly diagnostics: readonly Diagnostic[];
  readonly errors: number;
  readonly warnings: number;
  readonly files: number;
}

/**
 * Every finding for the solution: loading (YAML, schema) plus the semantic rules. Schema-invalid
 * files still get the naming and expression checks, so one run shows as much as possible.
 */
export async function validateSolution(
  solution: Solution,
  options: { only?: ReadonlySet<string> } = {},
): Promise<ValidationResult> {
  const found: Diagnostic[] = [...solution.diagnostics];
  const files: SourceFile[] = [...(solution.settings ? [solution.settings] : []), ...solution.files];
  for (const file of files) {
    const r = reporterFor(file, found);
    expressionSyntax(file, r);
    functionReferences(file, r, solution);
    guardCycle(file, r, solution);
    if (file.kind !== 'function') continue;
    fileName(file as ValidFunction, r, solution);
    if (!file.definition) continue;
    for (const rule of FUNCTION_RULES) await rule(file as ValidFunction, r, solution);
  }
  const only = options.only;
  const diagnostics = (only ? found.filter((d) => only.has(d.file)) : found).sort(compareDiagnostics);
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const checked = only ? files.filter((f) => only.has(f.yaml.file)).length : files.length;
  return { diagnostics, errors, warnings: diagnostics.length - errors, files: checked };
}
