import type { CredentialKind } from '../definition/credential-params.js';
import type { ParameterLocation as Location, QueryStyle } from '../definition/schema/parameter.js';
import { closest } from '../definition/suggest.js';
import { ParameterError } from './errors.js';
import type { ParameterPlan } from './plan.js';

/** A declared parameter with its value resolved and coerced. */
export interface ResolvedParameter {
  readonly name: string;
  readonly location: Location;
  readonly value: unknown;
  /** Set for credential parameters: `value` is then the credential key. */
  readonly credential: CredentialKind | undefined;
  /** How a query value is written, when its definition says (build-request.ts `queryPairs`). */
  readonly style?: QueryStyle;
  readonly explode?: boolean;
}

/** Evaluates a parameter's `value` (fixed value or expression) given the values resolved so far. */
export type DefaultValue = (
  name: string,
  raw: unknown,
  resolvedSoFar: Record<string, unknown>,
) => Promise<unknown>;

/**
 * Values from the caller, else each definition's `value`, in declaration order (so a default may read
 * an earlier parameter through @ctx.parameters), coerced to the declared type. Every missing
 * required parameter is reported at once, before anything is sent; the path parameters the url
 * needs (`inUrl`) are required whatever their definition says.
 *
 * Synchronous until a default is an expression: a fixed value is used as written, without a
 * promise per parameter; only an expression's evaluation is awaited (`defaultValue` is called for
 * those alone).
 */
export function resolveParameters(
  plans: readonly ParameterPlan[],
  given: Readonly<Record<string, unknown>>,
  defaultValue: DefaultValue,
  inUrl: ReadonlySet<string> = NO_NAMES,
): ResolvedParameter[] | Promise<ResolvedParameter[]> {
  const state: Resolution = {
    plans,
    given,
    defaultValue,
    inUrl,
    values: { ...given },
    resolved: [],
    missing: [],
  };
  return resolveFrom(state, 0);
}

const NO_NAMES: ReadonlySet<string> = new Set();

interface Resolution {
  readonly plans: readonly ParameterPlan[];
  readonly given: Readonly<Record<string, unknown>>;
  readonly defaultValue: DefaultValue;
  readonly inUrl: ReadonlySet<string>;
  /** The caller's values and those resolved so far: what an expression default reads. */
  readonly values: Record<string, unknown>;
  readonly resolved: ResolvedParameter[];
  readonly missing: string[];
}

function resolveFrom(state: Resolution, from: number): ResolvedParameter[] | Promise<ResolvedParameter[]> {
  const { plans, given } = state;
  for (let i = from; i < plans.length; i++) {
    const plan = plans[i]!;
    // Own values only: a parameter named `toString` must not find Object.prototype's function.
    let value = Object.hasOwn(given, plan.name) ? given[plan.name] : undefined;
    const raw = plan.definition.value;
    if (isAbsent(value) && raw !== undefined) {
      if (!plan.literal) {
        return state.defaultValue(plan.name, raw, state.values).then((evaluated) => {
          place(state, plan, evaluated);
          return resolveFrom(state, i + 1);
        });
      }
      value = raw;
    }
    place(state, plan, value);
  }
  const { missing } = state;
  if (missing.length > 0) {
    const list = missing.map((n) => `'${n}'`).join(', ');
    // How to give them is the caller's to say (the CLI adds its `-p name=VALUE`).
    throw new ParameterError(
      'PARAMETER_REQUIRED',
      missing[0]!,
      `missing required parameter${missing.length > 1 ? 's' : ''} ${list}`,
      missing,
    );
  }
  return state.resolved;
}

function place(state: Resolution, plan: ParameterPlan, value: unknown): void {
  const { name, definition, credential } = plan;
  if (isAbsent(value)) {
    if (definition.required || (plan.location === 'path' && state.inUrl.has(name))) state.missing.push(name);
    return;
  }
  const coerced = credential ? String(value) : coerce(name, definition.type, value);
  state.values[name] = coerced;
  const { style, explode } = definition;
  state.resolved.push(
    style === undefined && explode === undefined
      ? { name, location: plan.location, value: coerced, credential }
      : {
          name,
          location: plan.location,
          value: coerced,
          credential,
          ...(style !== undefined ? { style } : {}),
          ...(explode !== undefined ? { explode } : {}),
        },
  );
}

/**
 * No value: undefined or null. An empty string is a value (`-p note=` sends `""` in a body, query or
 * header); a path parameter refuses it when the url is built (INVALID_URL_VALUE, build-request.ts).
 */
function isAbsent(value: unknown): boolean {
  return value === undefined || value === null;
}

/**
 * Coerces a value to the declared type; types restfn does not know (`image`, ...) pass through.
 * `string` turns numbers and booleans into text but never a structured value: an object or list
 * (or bytes) stays as it is, so a JSON body keeps its shape (headers, paths and queries write it as
 * JSON text when they send it).
 */
export function coerce(name: string, type: string | undefined, value: unknown): unknown {
  const fail = (what: string): never => {
    throw new ParameterError('PARAMETER_TYPE', name, `parameter '${name}' must be ${what} (type: ${type})`);
  };
  switch (type) {
    // No type (an import's oneOf/anyOf): the value as given, a JSON number or boolean included.
    case undefined:
      return value;
    case 'string':
      return typeof value === 'object' ? value : String(value);
    case 'number':
    case 'int':
    case 'integer': {
      const n =
        typeof value === 'number'
          ? value
          : typeof value === 'string' && value.trim() !== ''
            ? Number(value)
            : Number.NaN;
      if (!Number.isFinite(n)) return fail('a number');
      if (type !== 'number' && !Number.isInteger(n)) return fail('a whole number');
      return n;
    }
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === '1' || value === 1) return true;
      if (value === 'false' || value === '0' || value === 0) return false;
      return fail('true or false');
    case 'array': {
      const parsed = typeof value === 'string' ? parseJson(value) : value;
      if (Array.isArray(parsed)) return parsed;
      if (value === null) return fail('a list (JSON array)');
      // One value where a list is declared is a list of one (an action's `=@ctx.current.item.id`, a
      // CLI `-p ids=7`): the platform sends it so. JSON text of an object is that object; any other
      // text stays the text it is ("7" is not 7).
      return [typeof parsed === 'object' && parsed !== null ? parsed : value];
    }
    case 'object': {
      const parsed = typeof value === 'string' ? parseJson(value) : value;
      const ok = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
      return ok ? parsed : fail('a map (JSON object)');
    }
    default:
      return value;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A value for a parameter the function does not declare would be dropped without a word, and the
 * call would go out with the default instead: a typo (`-p pgae=2`) is an error, with the closest
 * declared name suggested. Checked before anything is sent.
 */
export function refuseUnknownParameters(
  functionName: string,
  given: readonly string[],
  declared: Readonly<Record<string, unknown>> | undefined,
): void {
  const names = Object.keys(declared ?? {});
  const unknown = given.filter((name) => !Object.hasOwn(declared ?? {}, name));
  if (unknown.length === 0) return;
  const described = unknown.map((name) => {
    const match = closest(name, names);
    return match ? `'${name}' (did you mean '${match}'?)` : `'${name}'`;
  });
  const known =
    names.length > 0 ? `its parameters are ${names.map((n) => `'${n}'`).join(', ')}` : 'it has no parameters';
  throw new ParameterError(
    'PARAMETER_UNKNOWN',
    unknown[0]!,
    `function '${functionName}' has no parameter ${described.join(', ')}: ${known}`,
  );
}
