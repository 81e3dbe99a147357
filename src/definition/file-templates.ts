import { stringify } from 'yaml';
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

/**
 * A datasource filling `entity` from the function `fn` (every continuation page), with a query that
 * lists the table. Required parameters without a default are listed for the author to give.
 */
export function renderDatasource(entity: string, fn: string, definition: FunctionDefinition): string {
  const needed = Object.entries(definition.parameters ?? {})
    .filter(([name, p]) => p.required === true && p.value === undefined && !credentialKind(name, p))
    .map(([name]) => name);
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

/**
 * An action that changes a record of `entity` here and queues `fn` to change it on the service.
 * The row's values come from a screen's fields (`@ctx.components.NAME.state.value`), the record to
 * change from the screen's item (`@ctx.current.item.id`), and the function's parameters from the
 * row as changed (`@ctx.record`): the body parameters are fields, path parameters the record's id.
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
  if (existing) data.id = '=@ctx.current.item.id';
  for (const [key, p] of Object.entries(definition.parameters ?? {})) {
    if (credentialKind(key, p) || p.location === 'header' || p.location === 'output') continue;
    const field = `=@ctx.components.${key}.state.value`;
    if (p.location === 'path') parameters[key] = existing ? '=@ctx.record.id' : field;
    else if (method === 'functionCall') parameters[key] = field;
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
  const block = (name: string, values: Record<string, string>) =>
    Object.keys(values).length === 0 ? '' : `  ${name}:\n${yaml(values, '    ')}\n`;
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
