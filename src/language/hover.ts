import { relative } from 'node:path';
import type { Diagnostic } from '../definition/diagnostic.js';
import { RULES } from '../definition/rule-codes.js';
import type { Solution, SourceFile } from '../definition/solution.js';
import { expressionEntryAt } from './completion/index.js';
import { entityDeclarations } from './definition.js';
import { keyDoc } from './key-doc.js';
import { nameAt } from './name-at.js';
import { contains, nodeAt, type TextPosition } from './position.js';
import { diagnosticRange, type TextRange } from './range.js';
import type { LanguageService } from './service.js';
import { fileSummary, functionSummary } from './summary.js';

/** What hover shows: Markdown, and the range it is about. */
export interface HoverAnswer {
  readonly markdown: string;
  readonly range?: TextRange;
}

/**
 * Hover at a position of a solution's file: the explanation of each finding there (its code's rule,
 * then the finding's own message, which says how to fix it), then what the name there is (a
 * function's method, url and parameters; an action's or a datasource's summary and file), or the
 * reference's text for the key there (type, required, meaning, default: docs/reference.md's). The
 * findings are the file's current ones (`LanguageService.diagnostics`), given by the caller.
 */
export function hover(
  service: LanguageService,
  path: string,
  position: TextPosition,
  findings: readonly Diagnostic[] = [],
): HoverAnswer | undefined {
  const parts: string[] = [];
  let range: TextRange | undefined;
  const text = service.text(path) ?? '';
  for (const d of findings) {
    const at = diagnosticRange(d, text);
    if (!contains(at, position)) continue;
    range ??= at;
    parts.push(`**${d.code}** (${d.severity}): ${RULES[d.code].summary}\n\n${d.message}`);
  }
  const named = nameAt(service, path, position);
  const solution = service.solution();
  if (named?.kind === 'function') {
    const file = solution.functions.get(named.name);
    parts.push(
      file ? functionSummary(file, solution.root) : `function \`${named.name}\`: not in this solution`,
    );
    range = named.range ?? range;
  } else if (named?.kind === 'action' || named?.kind === 'datasource') {
    const file = solution.files.find((f) => f.kind === named.kind && f.name === named.name);
    parts.push(file ? fileSummary(file, solution) : `${named.kind} \`${named.name}\`: not in this solution`);
    range = named.range ?? range;
  } else if (named?.kind === 'entity') {
    const listed = entityDeclarations(service, named.name).map(
      (l) => `\`${relative(solution.root, l.path)}\``,
    );
    parts.push(
      `**table \`${named.name}\`**: ${listed.length > 0 ? `listed by ${[...new Set(listed)].join(', ')}` : 'listed by no datasource'}`,
    );
    range = named.range ?? range;
  } else if (named?.kind === 'script' && !named.module) {
    parts.push(`script function \`$${named.name}\` (\`scripts/expressions/${named.name.split('.')[0]}.js\`)`);
    range = named.range ?? range;
  } else {
    const file = service.source(path);
    const inExpression = file && expressionAt(file, position, solution);
    const key = inExpression ?? (file && keyAt(file, position));
    if (key) {
      parts.push(key.markdown);
      range ??= key.range;
    }
  }
  return parts.length > 0 ? { markdown: parts.join('\n\n---\n\n'), ...(range ? { range } : {}) } : undefined;
}

/** What completion's entry says of the name at a position inside an expression, as Markdown. */
function expressionAt(file: SourceFile, position: TextPosition, solution: Solution): HoverAnswer | undefined {
  const found = expressionEntryAt(file, position.line, position.character, solution);
  if (!found) return undefined;
  const { entry, start, end } = found;
  const lines = [`**\`${entry.label}\`**${entry.detail ? ` · \`${entry.detail}\`` : ''}`];
  if (entry.documentation) lines.push('', entry.documentation);
  return {
    markdown: lines.join('\n'),
    range: { start: { line: position.line, character: start }, end: { line: position.line, character: end } },
  };
}

/** The reference's text for the key at a position, as Markdown. */
function keyAt(file: SourceFile, position: TextPosition): HoverAnswer | undefined {
  const node = nodeAt(file.yaml.doc, file.yaml.text, position);
  if (node?.on !== 'key') return undefined;
  const doc = keyDoc(file.kind, file.data, node.path);
  if (!doc) return undefined;
  const head = [`**\`${doc.key}\`**`, doc.type, doc.required ? 'required' : undefined]
    .filter(Boolean)
    .join(' · ');
  const lines = [head];
  if (doc.description) lines.push('', doc.description);
  if (doc.default !== undefined) lines.push('', `Default: \`${String(doc.default)}\`.`);
  return { markdown: lines.join('\n'), range: node.range };
}
