import { stringify } from 'yaml';
import { parseUrlTemplate } from '../http/url-template.js';
import { credentialKind } from './credential-params.js';
import type { FunctionDefinition } from './schema/index.js';

import type { ActionMethod } from './template-names.js';

/** The action method a function's HTTP method suggests. */
export function methodFor(definition: FunctionDefinition): ActionMethod {
  switch (definition.method) {
    case 'POST':
      return 'create';
    case 'PUT':
    case 'PATCH':
      return 'update';
    case 'DELETE':
      return 'delete';
    default:
      return 'functionCall';
  }
}

// Names and expressions go through the yaml library, so a name with odd characters stays one key.
const yaml = (value: unknown, indent: string) =>
  stringify(value, { lineWidth: 0 })
    .trimEnd()
    .split('\n')
    .map((line) => `${indent}${line}`)
    .join('\n');

/** The parameters a caller must give: required, without a default, not a credential. */
export function neededParameters(definition: FunctionDefinition): string[] {
  return Object.entries(definition.parameters ?? {})
    .filter(([name, p]) => p.required === true && p.value === undefined && !credentialKind(name, p))
    .map(([name]) => name);
}

/**
 * A datasource filling `entity` from the function `fn` (every continuation page), with a query that
 * lists the table. Required parameters without a default are listed for the author to give.
 */
export function renderDatasource(entity: string, fn: string, definition: FunctionDefinition): string {
  const needed = neededParameters(definition);
  // Left commented: a made-up value would validate and be sent. Until given, the sync says which.
  const parameters =
    needed.length === 0
      ? ''
      : `      # ${fn} needs a value for each of these: a literal, or an expression (=@ctx.user.email)\n      # functionParameters:\n${yaml(Object.fromEntries(needed.map((n) => [n, 'VALUE'])), '      #   ')}\n`;
  return `# Fills the local table '${entity}' from ${fn}, every page of it, in one commit.
# restfn sync ${entity}; restfn query ${entity}
type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
${yaml([{ entity, function: fn }], '    ')}
${parameters}  query: SELECT id, data FROM [${entity}]
`;
}

const ROW = {
  create: "The new local row: the screen's fields.",
  update: "The local row: the screen's item, with the fields' values over it.",
  save: "The local row (made when missing): the screen's item, with the fields' values over it.",
  delete: "The record to delete: the screen's item.",
} as const;

/** The value `restfn new` leaves where only the author knows what to give; validate flags it (`TODO_VALUE`). */
export const TODO = '<TODO>';

/**
 * Which path parameter of `definition` is the id of the record the action changes: `id`, else one
 * named for the entity (`ticketId`, `ticket_id` for `tickets`), else the url's last placeholder.
 * Only parameters without a default count: one with a default (`{base}` from the solution's
 * settings) is not the caller's to give. Undefined when no such parameter is left.
 */
export function recordIdParameter(definition: FunctionDefinition, entity: string): string | undefined {
  const parameters = definition.parameters ?? {};
  const candidates = parseUrlTemplate(definition.url)
    .placeholders.map((p) => p.name)
    .filter((name, i, all) => {
      const p = parameters[name];
      return (
        all.indexOf(name) === i && p?.location === 'path' && p.value === undefined && !credentialKind(name, p)
      );
    });
  if (candidates.includes('id')) return 'id';
  const plain = entity.toLowerCase().replace(/[^a-z0-9]/g, '');
  const stems = new Set([plain, plain.replace(/(ies)$/, 'y'), plain.replace(/(es|s)$/, '')]);
  const named = candidates.find((name) => {
    const m = /^(.*?)(Id|_id|ID)$/.exec(name);
    return m !== null && stems.has(m[1]!.toLowerCase().replace(/[^a-z0-9]/g, ''));
  });
  return named ?? candidates.at(-1);
}

/**
 * An action that changes a record of `entity` here and queues `fn` to change it on the service.
 * The row's values come from a screen's fields (`@ctx.components.NAME.state.value`), the record to
 * change from the screen's item (`@ctx.current.item.id`), and the function's parameters from the
 * row as changed (`@ctx.record`): the body parameters are fields, the path parameter that is the
 * record's id (`recordIdParameter`) the row's id. Parameters with a default are left out so that it
 * applies; another path parameter of an existing record gets `TODO`, which validate flags.
 */
export function renderAction(
  name: string,
  entity: string,
  fn: string,
  definition: FunctionDefinition,
  method: ActionMethod,
): string {
  const data: Record<string, string> = {};
  const parameters: Record<string, string> = {};
  const existing = method !== 'create' && method !== 'functionCall';
  const recordId = existing ? recordIdParameter(definition, entity) : undefined;
  if (existing) data.id = '=@ctx.current.item.id';
  for (const [key, p] of Object.entries(definition.parameters ?? {})) {
    if (credentialKind(key, p) || p.location === 'header' || p.location === 'output') continue;
    const field = `=@ctx.components.${key}.state.value`;
    if (p.location === 'path') {
      if (p.value !== undefined) continue;
      parameters[key] = !existing ? field : key === recordId ? '=@ctx.record.id' : TODO;
    } else if (method === 'functionCall') parameters[key] = field;
    else if (method !== 'delete') {
      data[key] = field;
      parameters[key] = `=@ctx.record.${key}`;
    }
  }
  const what =
    method === 'functionCall'
      ? `Calls ${fn} with what a screen's fields give; no local row changes.`
      : `${method[0]!.toUpperCase()}${method.slice(1)}s a record of '${entity}' here at once, and queues ${fn} to do it on the service.`;
  const example = [
    ...(existing ? ['-p current.item.id=ID'] : []),
    ...Object.keys(method === 'functionCall' ? parameters : data)
      .filter((k) => k !== 'id' || !existing)
      .map((k) => `-p components.${k}.state.value=VALUE`),
  ].join(' ');
  // A TODO says on its line what to give; the yaml library writes no comments, so it is added here.
  const todo = (key: string) =>
    `# TODO: the value of ${fn}'s path parameter ${key}: a literal, or an expression (=@ctx.record.${key})`;
  const block = (name: string, values: Record<string, string>) =>
    Object.keys(values).length === 0
      ? ''
      : `  ${name}:\n${Object.entries(values)
          .map(([k, v]) => `${yaml({ [k]: v }, '    ')}${v === TODO ? `  ${todo(k)}` : ''}`)
          .join('\n')}\n`;
  return `# ${what}
# restfn action ${name} ${example}
type: action.execute-entity
options:
  provider: DATA_PROVIDER_REST
  entity: ${stringify(entity).trimEnd()}
  method: ${method}
  function: ${fn}
${method === 'functionCall' ? '' : `  # ${ROW[method]}\n${block('data', data)}`}  # The function's parameters${method === 'functionCall' ? '' : ', from the row as changed here'}.
${block('parameters', parameters)}`;
}
