import { createRequire } from 'node:module';
import type { Node, Pair, YAMLMap } from 'yaml';
import { credentialKind } from '../definition/credential-params.js';
import type { Diagnostic } from '../definition/diagnostic.js';
import { TODO } from '../definition/file-templates.js';
import { suggestFileName } from '../definition/naming.js';
import { callsOf, missingParameters } from '../definition/rules/call-parameters.js';
import type { FunctionDefinition, ParameterDefinition } from '../definition/schema/index.js';
import type { Solution, SourceFile } from '../definition/solution.js';
import { unquotedExpression } from '../definition/unquoted-expression.js';
import type { PropertyPath } from '../definition/yaml-file.js';
import { functionOrigin } from '../runtime/credential-origins.js';
import type { CredentialKey } from './completion/index.js';
import { diagnosticRange, type TextRange } from './range.js';
import type { LanguageService } from './service.js';
import { editAt, type TextEdit } from './text-edit.js';

// Required rather than imported, as yaml-file.ts does: `yaml` is CommonJS.
const { isMap, isScalar } = createRequire(import.meta.url)('yaml') as typeof import('yaml');

/** One quick fix of a finding: edits of the finding's own file, and a command for the author to run after. */
export interface QuickFix {
  readonly title: string;
  readonly diagnostic: Diagnostic;
  readonly edits: readonly TextEdit[];
  /**
   * A command the author runs once the edit is made (storing a credential): shown, never run, and
   * never holding a value from the file.
   */
  readonly command?: string;
}

/**
 * The quick fixes for the findings of `file` that touch `range`: each did-you-mean (the misspelt
 * word replaced), a call's missing required parameters (added as `<TODO>` under the parameters it
 * passes, which TODO_VALUE then points at), and a literal credential (its value replaced by a
 * credential key, with the `restfn credentials set` command that stores the value), and an
 * expression YAML could not read as written (quoted).
 */
export function quickFixes(
  file: SourceFile,
  findings: readonly Diagnostic[],
  range: TextRange,
  solution: Solution,
  storedKeys: () => readonly CredentialKey[] = () => [],
): QuickFix[] {
  const text = file.yaml.text;
  const fixes: QuickFix[] = [];
  for (const d of findings) {
    if (!overlaps(diagnosticRange(d, text), range)) continue;
    const suggested = suggestionFix(d, text);
    if (suggested) fixes.push(suggested);
    if (d.code === 'CALL_PARAMETER_MISSING') fixes.push(...missingParameterFixes(file, d, solution));
    if (d.code === 'YAML_SYNTAX') fixes.push(...quoteFixes(d, text));
    if (d.code === 'LITERAL_CREDENTIAL') fixes.push(...credentialFixes(file, d, solution, storedKeys));
  }
  return fixes;
}

/** The quick fixes at `range` of a file of the service, for the file's current findings. */
export async function quickFixesAt(
  service: LanguageService,
  path: string,
  range: TextRange,
): Promise<QuickFix[]> {
  const file = service.source(path);
  if (!file) return [];
  const findings = (await service.diagnostics([path])).get(path) ?? [];
  return quickFixes(file, findings, range, service.solution(), () => service.knownCredentialKeys());
}

function overlaps(a: TextRange, b: TextRange): boolean {
  const before = (x: TextRange['start'], y: TextRange['start']) =>
    x.line < y.line || (x.line === y.line && x.character <= y.character);
  return before(a.start, b.end) && before(b.start, a.end);
}

/** The did-you-mean: the misspelt word (the finding's `suggestion`) replaced by what was meant. */
function suggestionFix(d: Diagnostic, text: string): QuickFix | undefined {
  const s = d.suggestion;
  if (!s) return undefined;
  const start = { line: s.line - 1, character: s.col - 1 };
  const end = { line: s.line - 1, character: s.col - 1 + s.length };
  // Only where the file still holds a word of that length there (the finding may be older than the text).
  const lineText = text.split('\n', s.line)[s.line - 1] ?? '';
  if (lineText.length < end.character) return undefined;
  return {
    title: `Change to '${s.text}'`,
    diagnostic: d,
    edits: [{ range: { start, end }, newText: s.text }],
  };
}

/**
 * A YAML error on a line holding an expression written plain (`outputTransform: =$merge([$, {...}])`):
 * the value in single quotes, a `'` in it doubled. Not when a ` #` in it may start a comment.
 */
function quoteFixes(d: Diagnostic, text: string): QuickFix[] {
  const lineText = text.split('\n', d.line)[d.line - 1] ?? '';
  const plain = unquotedExpression(lineText);
  if (!plain || plain.value.includes(' #')) return [];
  const line = d.line - 1;
  return [
    {
      title: 'Quote the expression',
      diagnostic: d,
      edits: [
        {
          range: { start: { line, character: plain.start }, end: { line, character: plain.end } },
          newText: `'${plain.value.replaceAll("'", "''")}'`,
        },
      ],
    },
  ];
}

/** Where a path's node is in the text, as offsets; undefined when the path is not there. */
function nodeAt(file: SourceFile, path: PropertyPath): Node | undefined {
  const node = file.yaml.doc.getIn(path, true);
  return node && typeof node === 'object' && 'range' in (node as object) ? (node as Node) : undefined;
}

function pairOf(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((p) => isScalar(p.key) && p.key.value === key) as Pair | undefined;
}

/** 0-based column of an offset: the indentation of a key at it. */
function columnOf(text: string, offset: number): number {
  return offset - (text.lastIndexOf('\n', offset - 1) + 1);
}

function lineEnd(text: string, offset: number): number {
  const end = text.indexOf('\n', offset);
  return end === -1 ? text.length : end + 1;
}

/**
 * A call without parameters its function requires: `name: <TODO>` for each, under the parameters
 * the call passes (the map made after `function:` when it has none). `<TODO>` is what `restfn new`
 * leaves where only the author knows the value; validate points at it (TODO_VALUE) until it is given.
 */
function missingParameterFixes(file: SourceFile, d: Diagnostic, solution: Solution): QuickFix[] {
  const text = file.yaml.text;
  const call = callsOf(file).find((c) => {
    const at = file.yaml.locate(c.at);
    return at.line === d.line && at.col === d.col;
  });
  if (!call) return [];
  const missing = missingParameters(call, solution);
  if (missing.length === 0) return [];
  const owner = nodeAt(file, call.parameters.at);
  const fnNode = nodeAt(file, call.at);
  // A call written in flow style (`- { entity: x, function: y }`) takes no block lines: no fix.
  if (!owner || !isMap(owner) || owner.flow || !fnNode?.range) return [];
  const fnPair = pairOf(owner, 'function');
  const block = pairOf(owner, call.parameters.key)?.value as Node | undefined;
  const lines = (indent: number) =>
    missing.map((name) => `${' '.repeat(indent)}${keyText(name)}: ${TODO}\n`).join('');
  let edit: TextEdit;
  if (block && isMap(block) && block.flow && block.range) {
    // `{ a: 1 }`: the names go after the last one (in `{}`, before the closing brace).
    const items = missing.map((name) => `${keyText(name)}: ${TODO}`).join(', ');
    const last = block.items.at(-1);
    const end = last ? ((last.value as Node | null)?.range ?? (last.key as Node).range!)[1] : undefined;
    const close = text.lastIndexOf('}', block.range[1]);
    edit = end === undefined ? editAt(text, close, close, items) : editAt(text, end, end, `, ${items}`);
  } else if (block && isMap(block) && block.items.length > 0) {
    // Under the last one, at the first one's indentation.
    const first = block.items[0]!.key as Node;
    const last = block.items.at(-1)!;
    const end = lineEnd(text, ((last.value as Node | null)?.range ?? (last.key as Node).range!)[1] - 1);
    edit = editAt(text, end, end, lines(columnOf(text, first.range![0])));
  } else if (block === undefined && fnPair && isScalar(fnPair.key) && fnPair.key.range) {
    // No parameters yet: a map after the `function:` line, at its indentation.
    const column = columnOf(text, fnPair.key.range[0]);
    const end = lineEnd(text, fnNode.range[1] - 1);
    const head = `${' '.repeat(column)}${call.parameters.key}:\n`;
    edit = editAt(
      text,
      end,
      end,
      `${end === text.length && !text.endsWith('\n') ? '\n' : ''}${head}${lines(column + 2)}`,
    );
  } else return [];
  const names = missing.map((n) => `'${n}'`).join(', ');
  return [
    {
      title: `Add the missing required parameter${missing.length > 1 ? 's' : ''} ${names}`,
      diagnostic: d,
      edits: [edit],
    },
  ];
}

/** A key as YAML text: plain when it can be, else quoted. */
function keyText(name: string): string {
  return /^[A-Za-z_][\w-]*$/.test(name) ? name : JSON.stringify(name);
}

/**
 * A literal credential in a parameter's value: the value becomes a credential key and the
 * parameter `type: secret`; the command stores the credential under that key, its value typed at
 * the prompt (the edit removes it from the file; the command never holds it). A literal in the
 * url's query, or an OAuth parameter's (a login, not a pasted value), gets no fix.
 */
function credentialFixes(
  file: SourceFile,
  d: Diagnostic,
  solution: Solution,
  storedKeys: () => readonly CredentialKey[],
): QuickFix[] {
  const text = file.yaml.text;
  const parameters = (file.data as { parameters?: Record<string, ParameterDefinition> } | null)?.parameters;
  if (!parameters || typeof parameters !== 'object') return [];
  const name = Object.keys(parameters).find((n) => {
    const at = file.yaml.locate(['parameters', n, 'value']);
    return at.line === d.line && at.col === d.col;
  });
  if (name === undefined) return [];
  const parameter = parameters[name]!;
  const kind = credentialKind(name, parameter);
  if (kind === 'oauth' || typeof parameter.value !== 'string') return [];
  const definition =
    file.kind === 'function' ? (file.definition as FunctionDefinition | undefined) : undefined;
  const origin = definition
    ? functionOrigin(definition, solution.settings?.definition?.settings?.custom ?? {})
    : undefined;
  const store = storedAs(name, parameter.value, { taken: keysInUse(solution, file), fn: file.name, origin });
  const map = nodeAt(file, ['parameters', name]);
  const value = nodeAt(file, ['parameters', name, 'value']);
  if (!map || !isMap(map) || !value?.range) return [];
  const typeEdits: TextEdit[] = [];
  if (kind === undefined) {
    const type = pairOf(map, 'type');
    const valueKey = pairOf(map, 'value')?.key as Node | undefined;
    if (type && (type.value as Node | null)?.range) {
      const at = (type.value as Node).range!;
      typeEdits.push(editAt(text, at[0], at[1], 'secret'));
    } else if (valueKey?.range) {
      const at = valueKey.range[0];
      const inserted = map.flow ? 'type: secret, ' : `type: secret\n${' '.repeat(columnOf(text, at))}`;
      typeEdits.push(editAt(text, at, at, inserted));
    } else return [];
  }
  const keyEdits = (key: string) => [editAt(text, value.range![0], value.range![1], key), ...typeEdits];
  // A credential already stored (of the kind this one would be stored as) may be this one: its key
  // instead, each offered by key alone (the source gives no value).
  const stored = [
    ...new Set(
      storedKeys()
        .filter((k) => k.kind === store.kind)
        .map((k) => k.key),
    ),
  ];
  return [
    {
      title: `Store this credential as '${store.key}' (then run: ${store.command})`,
      diagnostic: d,
      edits: keyEdits(store.key),
      command: store.command,
    },
    ...stored
      .filter((key) => /^[\w.-]+$/.test(key))
      .map((key) => ({
        title: `Use the stored credential '${key}' (its value replaces this one)`,
        diagnostic: d,
        edits: keyEdits(key),
      })),
  ];
}

/**
 * The credential key and the store's kind for a literal: an `Authorization` value `Bearer ...` or
 * `token ...` is a bearer token (the store adds `Bearer`), `Basic ...` a user and password, any
 * other a secret sent as it is. Keys as the templates name them (`bearer-token`, `basic-auth`),
 * else the parameter's name as a file name (`apiKey` -> `api-key`).
 */
function storedAs(
  name: string,
  value: string,
  { taken, fn, origin }: { taken: ReadonlySet<string>; fn: string; origin: string | undefined },
): { key: string; kind: string; command: string } {
  const scheme = /^(bearer|token|basic)\s/i.exec(value)?.[1]?.toLowerCase();
  const authorization = /^authorization$/i.test(name);
  const [key, stored, kind] =
    scheme === 'basic'
      ? ['basic-auth', 'basic', '--kind basic --username <USERNAME>']
      : scheme || authorization
        ? ['bearer-token', 'bearer', '--kind bearer']
        : [suggestFileName(name) || 'secret', 'secret', '--kind secret'];
  // A key other functions already name may hold another service's credential: storing this one
  // under it would replace that one. Then the key is this function's own.
  const own = taken.has(key) ? `${fn}-${key}` : key;
  // Bound to where the function sends it, as `restfn credentials set` advises (when the file says where).
  const bound = origin === undefined ? '' : ` --origin ${origin}`;
  return { key: own, kind: stored, command: `restfn credentials set ${own} ${kind}${bound}` };
}

/** The credential keys the solution's other functions name. */
function keysInUse(solution: Solution, file: SourceFile): Set<string> {
  const keys = new Set<string>();
  for (const fn of solution.functions.values()) {
    if (fn.path === file.path) continue;
    for (const [name, p] of Object.entries(fn.definition?.parameters ?? {}))
      if (credentialKind(name, p) && typeof p.value === 'string') keys.add(p.value);
  }
  return keys;
}
