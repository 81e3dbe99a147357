import { credentialKind } from '../../definition/credential-params.js';
import type { Solution, SourceFile } from '../../definition/solution.js';
import type { CompletionEntry } from './entry.js';
import { expressionCompletions, expressionTokenAt, JSONATA_KEYS } from './expressions.js';
import { keyCompletions } from './keys.js';
import { actionNames, type CredentialKey, credentialKeys, entityNames, functionNames } from './names.js';
import { PASSED_PARAMETERS, parameterNames, parameterTypes } from './parameters.js';
import { nodesAt, valuesOf } from './schema.js';
import { fileTemplateSnippet, templateSnippets } from './snippets.js';
import { solutionIndex } from './solution-index.js';
import { type Ancestor, siblings, writtenTypes, type YamlPosition, yamlPosition } from './yaml-position.js';

export type { CompletionEntry, CompletionKind } from './entry.js';
export type { CredentialKey } from './names.js';

/** Keys whose value is SQLite SQL over the local tables. */
const SQL_KEYS: ReadonlySet<string> = new Set(['query', 'statement']);

/** Keys whose value (or list items) name a global action: `execute-action`'s and follow-ups. */
const ACTION_KEYS: ReadonlySet<string> = new Set(['onSuccess', 'onError', 'onCancelled']);

/**
 * What may be typed at a position (0-based line, UTF-16 character) of a definition file, read
 * from the text (a file being typed is rarely valid) and the solution: at a key, the schema's keys,
 * the parameters of the function (or action) the block names, and in an empty function, datasource
 * or action file the templates as snippets; at a value, inside an expression the context, functions and scripts, else
 * the names the key takes (functions, tables, actions, credential keys) or the schema's values.
 */
export function completions(
  file: SourceFile,
  line: number,
  character: number,
  solution: Solution,
  credentials: () => readonly CredentialKey[] = () => [],
): CompletionEntry[] {
  const lines = linesOf(file);
  const position = yamlPosition(lines, line, character);
  if (!position) return [];
  const steps = position.ancestors.map((a) => a.step);
  if (position.at === 'key') return atKey(file, lines, line, position, steps, solution);
  return atValue(file, lines, position, steps, solution, credentials);
}

function atKey(
  file: SourceFile,
  lines: readonly string[],
  line: number,
  position: Extract<YamlPosition, { at: 'key' }>,
  steps: ReadonlyArray<string | number>,
  solution: Solution,
): CompletionEntry[] {
  const out: CompletionEntry[] = [];
  if (position.column === 0 && isEmpty(lines, line)) {
    if (file.kind === 'function') return templateSnippets();
    // An empty datasource or action file: `restfn new -t datasource|action`'s text, then the keys.
    out.push(...fileTemplateSnippet(file, solution));
  }
  const index = solutionIndex(solution);
  const holder = lastNamed(position.ancestors);
  const from = position.column;
  if (holder && PASSED_PARAMETERS.has(String(holder.step)) && !position.inItem && file.kind !== 'solution') {
    const names = parameterNames(lines, line, position.column, holder, solution, index);
    if (names.length > 0) return names.map((n) => ({ ...n, from }));
  }
  // `- cust|` is a list item: a bare table name, or an item's first key.
  if (position.inItem && holder && (holder.step === 'entities' || holder.step === 'tables'))
    out.push(...entityNames(index, file, position.typed, from));
  if (position.inItem && holder && ACTION_KEYS.has(String(holder.step)))
    out.push(...actionNames(index, file, from));
  const written = new Set(siblings(lines, line, position.column).keys());
  const data = writtenTypes(lines, position.ancestors, line, position.column);
  out.push(...keyCompletions(file.kind, steps, written, data).map((k) => ({ ...k, from })));
  return out;
}

function atValue(
  file: SourceFile,
  lines: readonly string[],
  position: Extract<YamlPosition, { at: 'value' }>,
  steps: ReadonlyArray<string | number>,
  solution: Solution,
  credentials: () => readonly CredentialKey[],
): CompletionEntry[] {
  const { key, typed, from } = position;
  const index = solutionIndex(solution);
  if (isExpression(position)) return expressionCompletions(typed, from, file, solution, index);
  // SQL (a datasource's `query`, a function's query `statement`): tables are written `[name]`.
  const table = SQL_KEYS.has(key ?? '') ? /\[([\w-]*)$/.exec(typed) : null;
  if (table) return entityNames(index, file, table[1]!, from + typed.length - table[1]!.length);
  if (position.block !== undefined) return [];
  const holder = lastNamed(position.ancestors);
  const list = key === undefined ? String(holder?.step ?? '') : undefined;
  if (file.kind !== 'solution') {
    if (key === 'function') return functionNames(solution, from);
    if (key === 'value' && isCredential(lines, position)) return credentialKeys(credentials(), from);
    if (key === 'type' && position.ancestors.at(-2)?.step === 'parameters') return parameterTypes(from);
    if (key === 'entity' || key === 'table' || list === 'entities' || list === 'tables')
      return entityNames(index, file, typed, from);
    if ((key === 'action' && holder?.step === 'options') || ACTION_KEYS.has(key ?? list ?? ''))
      return actionNames(index, file, from);
  }
  const path = key === undefined ? steps : [...steps, key];
  return valuesOf(file.kind, nodesAt(file.kind, path)).map((v) => ({
    label: v.value,
    kind: 'value',
    ...(v.description ? { documentation: v.description } : {}),
    from,
  }));
}

/** The value being typed is JSONata: `=...` (a block scalar's first line too), or a key that always is. */
function isExpression(position: Extract<YamlPosition, { at: 'value' }>): boolean {
  const { key, typed, block } = position;
  return block !== undefined
    ? block.startsWith('=') || JSONATA_KEYS.has(key ?? '')
    : typed.startsWith('=') || (key !== undefined && JSONATA_KEYS.has(key));
}

/**
 * What completion says of the name at a position inside an expression (a context field of
 * `@ctx.a.b`, a `$function`, a script's export), with the name's span on the line: hover shows it.
 */
export function expressionEntryAt(
  file: SourceFile,
  line: number,
  character: number,
  solution: Solution,
): { entry: CompletionEntry; start: number; end: number } | undefined {
  const lines = linesOf(file);
  const token = expressionTokenAt(lines[line] ?? '', character);
  if (!token) return undefined;
  const position = yamlPosition(lines, line, token.end);
  if (position?.at !== 'value' || !isExpression(position)) return undefined;
  const entry = expressionCompletions(token.before, 0, file, solution, solutionIndex(solution)).find(
    (e) => e.label === token.name,
  );
  return entry && { entry, start: token.start, end: token.end };
}

/** `value:` of a parameter whose type (or name) makes it a credential: its value is a credential key. */
function isCredential(lines: readonly string[], position: Extract<YamlPosition, { at: 'value' }>): boolean {
  const [outer, name] = position.ancestors.slice(-2);
  if (outer?.step !== 'parameters' || typeof name?.step !== 'string') return false;
  const type = siblings(lines, position.line, position.column).get('type');
  return credentialKind(name.step, type ? { type } : {}) !== undefined;
}

function lastNamed(ancestors: readonly Ancestor[]): Ancestor | undefined {
  for (let i = ancestors.length - 1; i >= 0; i--)
    if (typeof ancestors[i]!.step === 'string') return ancestors[i];
  return undefined;
}

// A file's lines, split once per parsed text (completion is asked at each keystroke).
const LINES = new WeakMap<SourceFile, readonly string[]>();

function linesOf(file: SourceFile): readonly string[] {
  let lines = LINES.get(file);
  if (!lines) {
    lines = file.yaml.text.split('\n').map((l) => l.replace(/\r$/, ''));
    LINES.set(file, lines);
  }
  return lines;
}

/** Nothing but blank lines and comments besides the cursor's line. */
function isEmpty(lines: readonly string[], line: number): boolean {
  return lines.every((l, i) => i === line || /^\s*(#.*)?$/.test(l));
}
