import type { z } from 'zod';
import type { ScriptModule } from '../expression/scripts/sandbox.js';
import { type Diagnostic, diagnostic } from './diagnostic.js';
import { EXTENSION } from './file-kinds.js';
import { parseDefinition } from './schema/compiled.js';
import {
  type ActionFile,
  type DatasourceDefinition,
  type FileKind,
  type FunctionDefinition,
  SCHEMAS,
  type SolutionDefinition,
} from './schema/index.js';
import { schemaDiagnostics } from './schema-issues.js';
import { quoteAdvice, unquotedExpression } from './unquoted-expression.js';
import { YamlFile } from './yaml-file.js';

// A solution's files parsed from their texts, without reading any: what the Node loader
// (solution.ts) and the browser client (a published version's files) both build on.

export { EXTENSION } from './file-kinds.js';

export interface DefinitionOf {
  function: FunctionDefinition;
  datasource: DatasourceDefinition;
  action: ActionFile;
  solution: SolutionDefinition;
}

/** One loaded file. `definition` is set only when the file passed the schema. */
export interface SourceFile<K extends FileKind = FileKind> {
  readonly kind: K;
  /** Function name (its `functionId`, else the file's base name), or the datasource/action name. */
  readonly name: string;
  readonly path: string;
  readonly yaml: YamlFile;
  /** The file as plain data, whether or not it is valid. */
  readonly data: unknown;
  readonly definition: DefinitionOf[K] | undefined;
}

export interface Solution {
  readonly root: string;
  readonly name: string;
  readonly settings: SourceFile<'solution'> | undefined;
  readonly files: ReadonlyArray<SourceFile<'function' | 'datasource' | 'action'>>;
  /** Functions by name; with duplicate names the first file (in path order) wins. */
  readonly functions: ReadonlyMap<string, SourceFile<'function'>>;
  /** The expression script modules (`scripts/expressions/*.js`), by file name order. */
  readonly scripts: readonly ScriptModule[];
  /** Findings of loading: YAML syntax and schema. `validateSolution` adds the semantic rules. */
  readonly diagnostics: readonly Diagnostic[];
}

/** A definition file from its text (read by `loadFile`, or about to be written: an import's check). */
export function parseFile<K extends FileKind>(
  kind: K,
  path: string,
  display: string,
  text: string,
): { source: SourceFile<K>; diagnostics: Diagnostic[] } {
  const yaml = new YamlFile(display, text);
  const diagnostics: Diagnostic[] = [
    ...yaml.syntaxErrors().map((e) => {
      // An expression written plain (`outputTransform: =$merge([$, { "a": 1 }])`): say to quote it.
      // (A repeated key is not about quoting.)
      const repeated = e.message.startsWith('Map keys must be unique');
      const plain = repeated
        ? undefined
        : unquotedExpression(text.split('\n', e.at.line)[e.at.line - 1] ?? '');
      const fix = plain ? quoteAdvice(plain.key) : 'fix the YAML';
      return diagnostic('YAML_SYNTAX', `${e.message}; ${fix}`, e.at);
    }),
    ...yaml.aliasErrors().map((e) => diagnostic('YAML_ALIAS', e.message, e.at)),
  ];
  const data = diagnostics.length === 0 ? yaml.toJS() : undefined;
  let definition: DefinitionOf[K] | undefined;
  if (diagnostics.length === 0) {
    if (data === null || data === undefined) {
      diagnostics.push(
        diagnostic(
          'EMPTY_FILE',
          `the file is empty; write a ${kind} definition (see 'restfn new')`,
          yaml.locate([]),
        ),
      );
    } else {
      const schema = SCHEMAS[kind] as unknown as z.ZodType<DefinitionOf[K]>;
      const result = parseDefinition(schema, data);
      if (result.success) definition = result.data;
      else diagnostics.push(...schemaDiagnostics(yaml, data, result.error.issues));
    }
  }
  const name = kind === 'function' ? functionName(path, data) : baseName(path);
  // Positions found so far are in the diagnostics; a later finding parses the text again.
  yaml.release();
  return { source: { kind, name, path, yaml, data, definition }, diagnostics };
}

/** The file's base name without the extension (the function name unless `functionId` overrides it). */
export function baseName(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return name.endsWith(EXTENSION) ? name.slice(0, -EXTENSION.length) : name;
}

function functionName(path: string, data: unknown): string {
  const id = (data as { functionId?: unknown } | null | undefined)?.functionId;
  return typeof id === 'string' && id.length > 0 ? id : baseName(path);
}
