import { ScriptSandbox } from '../expression/scripts/sandbox.js';
import { compareDiagnostics, type Diagnostic, diagnostic } from './diagnostic.js';
import { componentIds, queueActionIds, todoValues } from './rules/actions.js';
import { bodyOnGet } from './rules/body.js';
import { callParameters } from './rules/call-parameters.js';
import { contextPaths, contextPathsOutsideFunctions } from './rules/context-paths.js';
import {
  continuationParameters,
  credentialAddress,
  literalCredential,
  localCallCredential,
  reshapedCredential,
} from './rules/credentials.js';
import { datasourceReads } from './rules/datasources.js';
import { expressionSyntax, type KnownNames } from './rules/expressions.js';
import { handlerMatchesSuccess } from './rules/handlers.js';
import { headerText } from './rules/headers.js';
import { namedExpressions } from './rules/named-expressions.js';
import { fileName, functionId, uniqueName } from './rules/naming.js';
import { deprecatedKeys, parameterLocation, parameterStyle, parameterType } from './rules/parameters.js';
import { queryDependencies } from './rules/queries.js';
import { functionReferences, guardCycle, onSuccessReferences } from './rules/references.js';
import { type FunctionRule, reporterFor, type ValidFunction } from './rules/reporter.js';
import { scopeConflict, scopeParameters } from './rules/scope.js';
import { pathParameters, urlAddress, urlQuery } from './rules/url.js';
import type { Solution, SourceFile } from './solution.js';
import { standInFunction } from './stand-in.js';

/** Rules over one function that passed the schema. Naming rules run on every function file. */
const FUNCTION_RULES: FunctionRule[] = [
  functionId,
  uniqueName,
  parameterLocation,
  parameterType,
  parameterStyle,
  headerText,
  urlAddress,
  pathParameters,
  urlQuery,
  bodyOnGet,
  scopeConflict,
  scopeParameters,
  queryDependencies,
  literalCredential,
  localCallCredential,
  credentialAddress,
  reshapedCredential,
  continuationParameters,
  contextPaths,
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
  options: {
    only?: ReadonlySet<string>;
    /** Run the rules over these files only (display paths), the rest of the solution read for reference: an editor's re-check of the files an edit touches. */
    check?: ReadonlySet<string>;
  } = {},
): Promise<ValidationResult> {
  const found: Diagnostic[] = [...solution.diagnostics];
  // Named expressions (solution.yaml `expressions:`) are also read as `$name`.
  const named = new Set(Object.keys(solution.settings?.definition?.expressions ?? {}));
  const known = { ...(await scriptNames(solution, found)), named };
  const files: SourceFile[] = [...(solution.settings ? [solution.settings] : []), ...solution.files];
  const check = options.check;
  for (const file of check ? files.filter((f) => check.has(f.yaml.file)) : files) {
    const r = reporterFor(file, found);
    expressionSyntax(file, r, known);
    functionReferences(file, r, solution);
    callParameters(file, r, solution);
    guardCycle(file, r, solution);
    onSuccessReferences(file, r, solution);
    namedExpressions(file, r, solution);

    componentIds(file, r);
    queueActionIds(file, r);
    todoValues(file, r);

    datasourceReads(file, r, solution);
    contextPathsOutsideFunctions(file, r, solution);
    if (file.kind !== 'function') continue;
    fileName(file as ValidFunction, r, solution);
    // A file that failed the schema is checked as mended where its messages say how (stand-in.ts).
    const checked = file.definition ? file : { ...file, definition: standInFunction(file.data) };
    if (!checked.definition) continue;
    for (const rule of FUNCTION_RULES) {
      // Most rules are synchronous: awaiting only the promises saves a turn per rule and file.
      const pending = rule(checked as ValidFunction, r, solution);
      if (pending) await pending;
    }
  }
  const only = options.only;
  const diagnostics = (only ? found.filter((d) => only.has(d.file)) : found).sort(compareDiagnostics);
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const checked = only ? files.filter((f) => only.has(f.yaml.file)).length : files.length;
  return { diagnostics, errors, warnings: diagnostics.length - errors, files: checked };
}

/**
 * Loads the solution's expression scripts in their sandbox to learn what they export (exports are
 * only known by running a module); modules that do not load are SCRIPT_LOAD findings.
 */
async function scriptNames(solution: Solution, found: Diagnostic[]): Promise<KnownNames> {
  if (solution.scripts.length === 0) return { scripts: new Map(), unloaded: new Set() };
  const sandbox = new ScriptSandbox(solution.scripts);
  try {
    const { functions, problems } = await sandbox.load();
    for (const p of problems) found.push(diagnostic('SCRIPT_LOAD', p.message, p));
    const failed = new Set(problems.map((p) => p.file));
    // A module that did not load still exists: calls into it are not reported a second time.
    const unloaded = new Set(solution.scripts.filter((m) => failed.has(m.file)).map((m) => m.name));
    return { scripts: functions, unloaded };
  } finally {
    sandbox.dispose();
  }
}
