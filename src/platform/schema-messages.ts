/**
 * The API's request schemas are checked by fastify's validator (Ajv), whose own wording
 * (`body/password must NOT have fewer than 12 characters`) names its data variables, not what the
 * caller sent. These are the same findings in the caller's words: the field, what it must be, and
 * how to fix it. Pure: the error handler gives the route's body schema for the hints.
 */

/** What Ajv says of one value (the fields used here; `ErrorObject` has more). */
export interface SchemaFinding {
  readonly keyword: string;
  readonly instancePath: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly message?: string;
}

/** The part of the request fastify checked: `body`, `querystring`, `params`, `headers`. */
export type SchemaPart = string | undefined;

/** A JSON schema's object shape, as far as the hints read it. */
interface ObjectSchema {
  readonly properties?: Readonly<Record<string, unknown>>;
}

/** One line for the caller, from the first finding (Ajv stops at the first unless allErrors). */
export function plainSchemaMessage(
  findings: readonly SchemaFinding[],
  part: SchemaPart,
  bodySchema?: ObjectSchema,
): string {
  const lines = findings.map((f) => plainFinding(f, part, bodySchema));
  return [...new Set(lines)].join('; ');
}

function plainFinding(f: SchemaFinding, part: SchemaPart, bodySchema?: ObjectSchema): string {
  const path = f.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const where = path.length > 0 ? path.join('.') : undefined;
  const field = where ?? wholePart(part);
  const p = f.params;
  switch (f.keyword) {
    case 'minLength':
      return `${field}: at least ${p.limit} character${p.limit === 1 ? '' : 's'}`;
    case 'maxLength':
      return `${field}: at most ${p.limit} characters`;
    case 'minimum':
    case 'exclusiveMinimum':
      return `${field}: ${f.keyword === 'minimum' ? 'at least' : 'more than'} ${p.limit}`;
    case 'maximum':
    case 'exclusiveMaximum':
      return `${field}: ${f.keyword === 'maximum' ? 'at most' : 'less than'} ${p.limit}`;
    case 'minItems':
      return `${field}: at least ${p.limit} item${p.limit === 1 ? '' : 's'}`;
    case 'maxItems':
      return `${field}: at most ${p.limit} items`;
    case 'type':
      return `${field}: must be ${article(String(p.type))}`;
    case 'enum':
      return `${field}: one of ${(p.allowedValues as unknown[] | undefined)?.join(', ') ?? 'the listed values'}`;
    case 'required': {
      const missing = String(p.missingProperty);
      return `missing field \`${where ? `${where}.` : ''}${missing}\`: add it${where ? '' : ` to the ${wholePart(part)}`}`;
    }
    case 'additionalProperties': {
      const extra = String(p.additionalProperty);
      const named = where ? `${where}.${extra}` : extra;
      // The execute routes take the function's parameters inside `parameters`: a caller who sent
      // them at the top level is told where they go.
      if (!where && part === 'body' && bodySchema?.properties && 'parameters' in bodySchema.properties) {
        return `unknown field \`${named}\`: parameters go inside \`parameters: {...}\``;
      }
      const known = !where && part === 'body' ? Object.keys(bodySchema?.properties ?? {}) : [];
      return `unknown field \`${named}\`${known.length > 0 ? `: the fields are ${known.join(', ')}` : ': remove it'}`;
    }
    case 'pattern':
      return `${field}: not in the form it takes (${p.pattern})`;
    case 'format':
      return `${field}: not a valid ${p.format}`;
    default:
      // A keyword not worded here (a pattern, a format): Ajv's message, under the field's name.
      return `${field}: ${f.message ?? 'not valid'}`;
  }
}

function wholePart(part: SchemaPart): string {
  if (part === 'querystring') return 'query string';
  if (part === 'params') return 'address';
  return part ?? 'request';
}

function article(type: string): string {
  const names: Record<string, string> = {
    object: 'an object ({...})',
    array: 'a list ([...])',
    integer: 'a whole number',
    number: 'a number',
    boolean: 'true or false',
    string: 'a string',
  };
  return type
    .split(',')
    .map((t) => names[t] ?? t)
    .join(' or ');
}
