import type { Solution, SourceFile } from '../../definition/solution.js';
import { builtinSignature } from '../../expression/builtins.js';
import { CUSTOM_FUNCTIONS, JSONATA_FUNCTIONS } from '../../expression/functions.js';
import { CONTEXT, type ContextField } from './context-paths.js';
import { datasourceColumns } from './datasource-columns.js';
import type { CompletionEntry } from './entry.js';
import { readableSignature } from './jsonata-signature.js';
import { objectOr } from './plain-data.js';
import type { SolutionIndex } from './solution-index.js';

/** Keys whose value is always JSONata, with or without a leading `=`. */
export const JSONATA_KEYS: ReadonlySet<string> = new Set(['inputTransform', 'outputTransform', 'records']);

// A step may be indexed or filtered (`customers[0].`, `customers[status = 'open'].`): the same fields.
const CONTEXT_PATH = /@(?:ctx)?((?:\.[\w-]+(?:\[[^[\]]*\])*)*)\.([\w-]*)$/;
const CONTEXT_ROOT = /(?<![\w@$])@c?t?x?$/;
const SCRIPT_CALL = /\$([A-Za-z_]\w*)\.(\w*)$/;
const VARIABLE = /\$(\w*)$/;

/**
 * Completions inside an expression, from what is typed before the cursor (`before`, which starts at
 * character `offset` of the line): after `@ctx.` (or `@.`) the context's fields, then deeper the
 * solution's own names; after `$` JSONata's functions (with their signatures), restfn's, the
 * script modules and the named expressions; after `$<script>.` that script's exported functions.
 */
export function expressionCompletions(
  before: string,
  offset: number,
  file: SourceFile,
  solution: Solution,
  index: SolutionIndex,
): CompletionEntry[] {
  const path = CONTEXT_PATH.exec(before);
  if (path) {
    const steps = path[1]!
      .replace(/\[[^[\]]*\]/g, '')
      .split('.')
      .filter(Boolean);
    const from = offset + before.length - path[2]!.length;
    return contextFields(steps, file, solution, index).map((e) => ({ ...e, from }));
  }
  const root = CONTEXT_ROOT.exec(before);
  if (root)
    return [
      {
        label: '@ctx',
        kind: 'context',
        detail: 'the context',
        documentation: 'The context of the expression (`@.` is short for `@ctx.`).',
        from: offset + before.length - root[0].length,
      },
    ];
  const call = SCRIPT_CALL.exec(before);
  if (call && index.scripts.has(call[1]!)) {
    const from = offset + before.length - call[2]!.length;
    return index.scripts.get(call[1]!)!.map((f) => ({
      label: f.name,
      kind: 'script',
      detail: `$${call[1]}.${f.name}(${f.parameters ?? '…'})`,
      documentation: `Exported by scripts/expressions/${call[1]}.js.`,
      from,
    }));
  }
  const variable = VARIABLE.exec(before);
  if (variable) return variables(solution, index, offset + before.length - variable[0].length);
  return [];
}

function variables(solution: Solution, index: SolutionIndex, from: number): CompletionEntry[] {
  const out: CompletionEntry[] = [];
  for (const name of JSONATA_FUNCTIONS) {
    const signature = builtinSignature(name);
    out.push({
      label: `$${name}`,
      kind: 'jsonata',
      detail: signature ? readableSignature(name, signature) : `$${name}()`,
      documentation: 'JSONata function.',
      from,
    });
  }
  for (const f of CUSTOM_FUNCTIONS)
    out.push({
      label: `$${f.name}`,
      kind: 'jsonata',
      detail: readableSignature(f.name, f.signature),
      documentation: 'Added by restfn.',
      from,
    });
  for (const [name, exports] of index.scripts)
    out.push({
      label: `$${name}`,
      kind: 'script',
      detail: `scripts/expressions/${name}.js`,
      documentation: `Script module: ${exports.map((e) => e.name).join(', ') || 'no exported function seen'}.`,
      from,
    });
  for (const [name, value] of Object.entries(namedExpressions(solution)))
    out.push({
      label: `$${name}`,
      kind: 'expression',
      detail: String(value),
      documentation: 'Named expression (solution.yaml).',
      from,
    });
  return out;
}

function contextFields(
  steps: readonly string[],
  file: SourceFile,
  solution: Solution,
  index: SolutionIndex,
): CompletionEntry[] {
  const own = (file.data && typeof file.data === 'object' ? file.data : {}) as Record<string, unknown>;
  const key = steps.join('.');
  const named = (entries: Iterable<[string, string | undefined, string | undefined]>): CompletionEntry[] =>
    [...entries].map(([label, detail, documentation]) => ({
      label,
      kind: 'context',
      ...(detail ? { detail } : {}),
      ...(documentation ? { documentation } : {}),
    }));
  switch (key) {
    case 'parameters':
      return file.kind === 'function' ? parameterFields(own.parameters) : [];
    case 'action.parameters':
      return file.kind === 'action' ? parameterFields(own.parameters) : [];
    case 'queries':
      return named(Object.keys(objectOr(own.queries)).map((q) => [q, 'query', undefined]));
    case 'datasources':
      // A datasource reading its own rows would wait for itself: it is left out.
      return named(
        [...index.datasources.keys()]
          .filter((d) => file.kind !== 'datasource' || d !== file.name)
          .map((d) => [d, 'datasource', columnsDoc(index, d)]),
      );
    case 'solution.settings.custom':
      return named(
        Object.entries(objectOr(objectOr(settingsOf(solution).settings).custom)).map(([k, v]) => [
          k,
          JSON.stringify(v),
          'solution.yaml settings.custom',
        ]),
      );
    case 'expressions':
      return named(
        Object.entries(namedExpressions(solution)).map(([k, v]) => [k, String(v), 'Named expression']),
      );
  }
  if (steps.length === 2 && steps[0] === 'datasources') {
    const source = index.datasources.get(steps[1]!);
    return source ? named(datasourceColumns(source).map((c) => [c, `column of ${steps[1]}`, undefined])) : [];
  }
  let fields: Readonly<Record<string, ContextField>> | undefined = CONTEXT;
  for (const step of steps) fields = fields?.[step]?.fields;
  return named(Object.entries(fields ?? {}).map(([name, f]) => [name, undefined, f.doc]));
}

function columnsDoc(index: SolutionIndex, name: string): string {
  const columns = datasourceColumns(index.datasources.get(name)!);
  return `Its rows${columns.length > 0 ? `: ${columns.join(', ')}` : ''}.`;
}

function parameterFields(parameters: unknown): CompletionEntry[] {
  return Object.entries(objectOr(parameters)).map(([name, p]) => {
    const d = objectOr(p);
    return {
      label: name,
      kind: 'context',
      detail: [d.type ?? 'string', d.location, d.required === true ? 'required' : undefined]
        .filter((v) => typeof v === 'string')
        .join(' · '),
    };
  });
}

function settingsOf(solution: Solution): Record<string, unknown> {
  return objectOr(solution.settings?.data);
}

function namedExpressions(solution: Solution): Record<string, unknown> {
  return objectOr(settingsOf(solution).expressions);
}

/**
 * The name at `character` of an expression's line, as completion would have offered it: `before`,
 * what is typed before it (`@ctx.action.parameters.`, `$`, `$format.`), and the label (`id`,
 * `$substring`, `fullName`), with its span.
 */
export function expressionTokenAt(
  text: string,
  character: number,
): { before: string; name: string; start: number; end: number } | undefined {
  for (const m of text.matchAll(/@(?:ctx)?(?:\.[\w-]+(?:\[[^[\]]*\])*)+/g))
    for (const step of m[0].matchAll(/\.([\w-]+)/g)) {
      const start = m.index + step.index + 1;
      const end = start + step[1]!.length;
      if (character >= start && character <= end)
        return { before: text.slice(m.index, start), name: step[1]!, start, end };
    }
  for (const m of text.matchAll(/\$([A-Za-z_]\w*)(?:\.(\w+))?/g)) {
    const nameEnd = m.index + 1 + m[1]!.length;
    if (character >= m.index && character <= nameEnd)
      return { before: '$', name: `$${m[1]}`, start: m.index, end: nameEnd };
    if (m[2] && character > nameEnd && character <= m.index + m[0].length)
      return { before: `$${m[1]}.`, name: m[2], start: nameEnd + 1, end: m.index + m[0].length };
  }
  return undefined;
}
