import {
  methodFor,
  neededParameters,
  renderAction,
  renderDatasource,
} from '../../definition/file-templates.js';
import type { FunctionDefinition } from '../../definition/schema/index.js';
import type { Solution, SourceFile } from '../../definition/solution.js';
import { renderTemplate, TEMPLATE_NAMES } from '../../definition/templates.js';
import type { CompletionEntry } from './entry.js';

const METHODS = 'GET,POST,PUT,PATCH,DELETE';

/**
 * The function templates `restfn new -t` writes, as snippets for an empty function file: the
 * template's own text (templates.ts), with the url, the method and a default or credential key as
 * placeholders to tab through, in that order.
 */
export function templateSnippets(): CompletionEntry[] {
  return TEMPLATE_NAMES.map((name) => {
    const text = renderTemplate(name);
    const description = /^# (.*)$/m.exec(text)?.[1];
    const snippet = text
      .split('\n')
      .map((line) => {
        const escaped = line.replace(/[\\$}]/g, (c) => `\\${c}`);
        if (/^url: /.test(line)) return `url: \${1:${escaped.slice(5)}}`;
        if (/^method: /.test(line)) return `method: \${2|${METHODS}|}`;
        const value = /^(\s+value: )(.*)$/.exec(escaped);
        if (value && /^[\w.-]+$/.test(value[2]!)) return `${value[1]}\${3:${value[2]}}`;
        return escaped;
      })
      .join('\n');
    return {
      label: `template: ${name}`,
      kind: 'snippet',
      detail: `restfn new NAME -t ${name}`,
      ...(description ? { documentation: description } : {}),
      insertText: `${snippet.trimEnd()}\n$0`,
      snippet: true,
    };
  });
}

const escapeSnippet = (text: string) => text.replace(/[\\$}]/g, (c) => `\\${c}`);
const ACTION_METHODS = ['create', 'update', 'save', 'delete', 'functionCall'];

/**
 * `restfn new NAME -t datasource|action` as a snippet for an empty datasource or action file: the
 * same text (file-templates.ts), for the file's name and a function of the solution (one that
 * reads for a datasource, one that writes for an action, needing no parameter where one does, else
 * the first valid one), with the
 * table, the function (and the action's method) as placeholders. None without a valid function.
 */
export function fileTemplateSnippet(file: SourceFile, solution: Solution): CompletionEntry[] {
  if (file.kind !== 'datasource' && file.kind !== 'action') return [];
  const valid = [...solution.functions.values()]
    .filter((f) => f.definition)
    .map((f) => ({ name: f.name, definition: f.definition as FunctionDefinition }));
  // A function needing no parameter first: the expanded snippet then validates as it is.
  const free = (f: { definition: FunctionDefinition }) => neededParameters(f.definition).length === 0;
  const reads = (f: { definition: FunctionDefinition }) => f.definition.method === 'GET';
  const writes = (f: { definition: FunctionDefinition }) => !reads(f);
  const fits = file.kind === 'datasource' ? reads : writes;
  const chosen = valid.find((f) => fits(f) && free(f)) ?? valid.find(fits) ?? valid[0];
  if (!chosen) return [];
  const entity = file.name;
  const text =
    file.kind === 'datasource'
      ? renderDatasource(entity, chosen.name, chosen.definition)
      : renderAction(file.name, entity, chosen.name, chosen.definition, methodFor(chosen.definition));
  const snippet = text
    .split('\n')
    .map((line) => {
      const e = escapeSnippet(line);
      const entityLine = /^(\s*(?:- )?entity: )(.*)$/.exec(e);
      if (entityLine) return `${entityLine[1]}\${1:${entityLine[2]}}`;
      const fnLine = /^(\s*function: )(.*)$/.exec(e);
      if (fnLine) return `${fnLine[1]}\${2:${fnLine[2]}}`;
      const method = /^(\s*method: )(.*)$/.exec(e);
      if (method && file.kind === 'action') {
        const rest = ACTION_METHODS.filter((m) => m !== method[2]);
        return `${method[1]}\${3|${[method[2], ...rest].join(',')}|}`;
      }
      return e;
    })
    .join('\n');
  const template = file.kind;
  return [
    {
      label: `template: ${template}`,
      kind: 'snippet',
      detail: `restfn new ${file.name} -t ${template} --function ${chosen.name}${template === 'action' ? ` --entity ${entity}` : ''}`,
      ...(/^# (.*)$/m.exec(text)?.[1] ? { documentation: /^# (.*)$/m.exec(text)![1]! } : {}),
      insertText: `${snippet.trimEnd()}\n$0`,
      snippet: true,
    },
  ];
}
