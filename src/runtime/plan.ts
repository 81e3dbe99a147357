import { type CredentialKind, credentialKind } from '../definition/credential-params.js';
import type { FunctionDefinition, ParameterDefinition } from '../definition/schema/index.js';
import type { ParameterLocation } from '../definition/schema/parameter.js';
import { expressionSource, isExpression } from '../expression/source.js';
import { parseUrlTemplate, type UrlTemplate } from '../http/url-template.js';

/**
 * What every execution of one function would otherwise work out again from its definition: which
 * parameters there are and which defaults are fixed values, which url placeholders must be filled,
 * whether the outputTransform can read the extras of its input. Computed at a function's first
 * execution and kept with its definition (definitions do not change once loaded).
 */
export interface FunctionPlan {
  readonly parameters: ParametersPlan;
  /** Path placeholders a literal url fills (required whatever their definition says). */
  readonly inUrl: ReadonlySet<string>;
  readonly urlIsExpression: boolean;
  /**
   * Whether the outputTransform may read `headers`, `status` or `inputs` of its `$` (or look a
   * name up by a computed key): only then is its input the body's copy with those extras.
   */
  readonly outputReadsExtras: boolean;
}

/** The parameters of a function, or of its continuation, in declaration order. */
export interface ParametersPlan {
  readonly list: readonly ParameterPlan[];
  /** Some default reads @ctx.queries: those resolve after the queries (unless the caller gave a value). */
  readonly readsQueries: boolean;
}

export interface ParameterPlan {
  readonly name: string;
  readonly definition: ParameterDefinition;
  readonly location: ParameterLocation;
  readonly credential: CredentialKind | undefined;
  /** Its `value` is no expression: the default is the value as written (nothing to evaluate). */
  readonly literal: boolean;
  readonly readsQueries: boolean;
}

const NO_NAMES: ReadonlySet<string> = new Set();
const NO_PARAMETERS: Readonly<Record<string, ParameterDefinition>> = Object.freeze({});
const plans = new WeakMap<FunctionDefinition, FunctionPlan>();
const parameterPlans = new WeakMap<object, ParametersPlan>();

export function planOf(definition: FunctionDefinition): FunctionPlan {
  let plan = plans.get(definition);
  if (!plan) {
    plan = makePlan(definition);
    plans.set(definition, plan);
  }
  return plan;
}

/** The plan of a parameters map (a function's, or its continuation's). */
export function parametersPlan(definitions: Readonly<Record<string, ParameterDefinition>> | undefined) {
  const map = definitions ?? NO_PARAMETERS;
  let plan = parameterPlans.get(map);
  if (!plan) {
    const list = Object.keys(map).map((name) => parameterPlan(name, map[name]!));
    plan = { list, readsQueries: list.some((p) => p.readsQueries) };
    parameterPlans.set(map, plan);
  }
  return plan;
}

function makePlan(definition: FunctionDefinition): FunctionPlan {
  const transform = definition.outputTransform;
  return {
    parameters: parametersPlan(definition.parameters),
    inUrl: placeholderNames(definition.url),
    urlIsExpression: isExpression(definition.url),
    outputReadsExtras: transform === undefined || READS_EXTRAS.test(transform),
  };
}

const READS_QUERIES = /@(?:ctx)?\.queries\b/;
/**
 * Names of `responseInput`'s extras, and the functions that read a property by a computed name. Any
 * other way JSONata reads `$` (`*`, `**`, `$keys`, `$each`, `$spread`, `$string`, a script
 * function's JSON argument) sees only enumerable properties, which the extras are not.
 */
const READS_EXTRAS = /headers|status|inputs|\$lookup|\$eval/;

function parameterPlan(name: string, definition: ParameterDefinition): ParameterPlan {
  const value = definition.value;
  return {
    name,
    definition,
    location: definition.location ?? 'header',
    credential: credentialKind(name, definition),
    literal: typeof value !== 'string' || expressionSource(value) === undefined,
    readsQueries: typeof value === 'string' && READS_QUERIES.test(value),
  };
}

const placeholderSets = new WeakMap<UrlTemplate, ReadonlySet<string>>();

/** The placeholders a literal url fills (its written query is replaced, so not those). */
export function placeholderNames(url: string): ReadonlySet<string> {
  if (isExpression(url)) return NO_NAMES;
  const template = parseUrlTemplate(url);
  let names = placeholderSets.get(template);
  if (!names) {
    names = new Set(template.placeholders.filter((p) => p.part !== 'query').map((p) => p.name));
    placeholderSets.set(template, names);
  }
  return names;
}
