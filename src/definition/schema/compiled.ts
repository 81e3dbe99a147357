import type { z } from 'zod';

/**
 * Definition schemas checked without zod's machinery for data that passes (issue 29): zod's
 * `safeParse` was ~45 µs of every file `restfn validate`, `run` and a publish load, most of it
 * building results and issue lists for data that has no issue. A schema is compiled once into plain
 * functions, one per node, giving zod's output (its object key order, defaults applied, new objects
 * and arrays, `unknown` values as they are). Data a compiled check does not accept is left to zod,
 * which gives the answer and the messages. A schema with any part this does not know exactly (a
 * string format such as `z.url()`, a refinement, a coercion, a check kind other than lengths,
 * integers and bounds) is not compiled at all: zod answers for all of it, so the compiled check may
 * only ever be stricter than zod, never looser, and an option zod would take first is never passed
 * over for a later one. test/definition/compiled-schema.test.ts holds it to zod's answers.
 */

/** No compiled answer: zod decides. */
const FALLBACK: unique symbol = Symbol('zod decides');

type Check = (value: unknown) => unknown;

interface Def {
  readonly type: string;
  readonly checks?: ReadonlyArray<{ _zod: { def: Record<string, unknown> } }>;
  readonly shape?: Record<string, z.ZodType>;
  readonly catchall?: z.ZodType;
  readonly innerType?: z.ZodType;
  readonly defaultValue?: unknown;
  readonly options?: readonly z.ZodType[];
  readonly element?: z.ZodType;
  readonly keyType?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly values?: readonly unknown[];
  readonly entries?: Record<string, unknown>;
}

/**
 * The definition keys a node of each kind may have to be compiled; any other (`format`, `coerce`,
 * `check` on the node itself...) changes what zod accepts. `error` only changes messages.
 */
const KNOWN_KEYS: Readonly<Record<string, readonly string[]>> = {
  string: ['checks'],
  number: ['checks'],
  boolean: [],
  null: [],
  unknown: [],
  literal: ['values'],
  enum: ['entries'],
  optional: ['innerType'],
  nullable: ['innerType'],
  default: ['innerType', 'defaultValue'],
  array: ['element', 'checks'],
  record: ['keyType', 'valueType'],
  object: ['shape', 'catchall'],
  union: ['options', 'discriminator', 'inclusive'],
};

/** Compiled schemas; `null` for one zod answers for whole. */
const compiled = new WeakMap<z.ZodType, Check | null>();

/** `schema.safeParse(data)`, answered without zod when the data passes a compiled check. */
export function parseDefinition<T>(schema: z.ZodType<T>, data: unknown): z.ZodSafeParseResult<T> {
  const check = compile(schema);
  const value = check ? check(data) : FALLBACK;
  if (value === FALLBACK) return schema.safeParse(data);
  return { success: true, data: value as T };
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/** An object zod's records take (its `isPlainObject`): not an array, a Date, a Set, a Buffer... */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const ctor = (value as { constructor?: unknown }).constructor;
  if (ctor === undefined || typeof ctor !== 'function') return true;
  const prototype = (ctor as { prototype?: unknown }).prototype;
  return typeof prototype === 'object' && prototype !== null && Object.hasOwn(prototype, 'isPrototypeOf');
}

/**
 * The check of one schema node (compiled once: nodes are shared, `expression` by many), giving its
 * output or FALLBACK; `undefined` when the node or any part of it cannot be compiled. A node met
 * again while it is being compiled (a recursive schema) calls through.
 */
function compile(schema: z.ZodType): Check | undefined {
  const known = compiled.get(schema);
  if (known !== undefined) return known ?? undefined;
  let check: Check | undefined;
  compiled.set(schema, (v) => (check ? check(v) : FALLBACK));
  check = build(defOf(schema));
  compiled.set(schema, check ?? null);
  return check;
}

function build(def: Def): Check | undefined {
  const allowed = KNOWN_KEYS[def.type];
  if (!allowed || Object.keys(def).some((k) => k !== 'type' && k !== 'error' && !allowed.includes(k)))
    return undefined;
  const parts = (schemas: readonly z.ZodType[]) => {
    const checks = schemas.map(compile);
    return checks.every((c) => c !== undefined) ? (checks as Check[]) : undefined;
  };
  switch (def.type) {
    case 'string': {
      const ok = lengthChecks(def);
      return ok && ((v) => (typeof v === 'string' && ok(v.length) ? v : FALLBACK));
    }
    case 'number': {
      const ok = numberChecks(def);
      return ok && ((v) => (typeof v === 'number' && Number.isFinite(v) && ok(v) ? v : FALLBACK));
    }
    case 'boolean':
      return (v) => (typeof v === 'boolean' ? v : FALLBACK);
    case 'null':
      return (v) => (v === null ? v : FALLBACK);
    case 'unknown':
      return (v) => v;
    case 'literal': {
      const values = def.values ?? [];
      return (v) => (values.includes(v) ? v : FALLBACK);
    }
    case 'enum': {
      const values = Object.values(def.entries ?? {});
      return (v) => (values.includes(v) ? v : FALLBACK);
    }
    case 'optional': {
      const inner = compile(def.innerType!);
      return inner && ((v) => (v === undefined ? undefined : inner(v)));
    }
    case 'nullable': {
      const inner = compile(def.innerType!);
      return inner && ((v) => (v === null ? null : inner(v)));
    }
    case 'default': {
      const inner = compile(def.innerType!);
      const fallback = def.defaultValue;
      // Only a plain value is handed out as it is (an object default would be shared).
      if (!inner || (fallback !== null && typeof fallback === 'object')) return undefined;
      return (v) => (v === undefined ? fallback : inner(v));
    }
    case 'array': {
      const element = compile(def.element!);
      const ok = lengthChecks(def);
      if (!element || !ok) return undefined;
      return (v) => {
        if (!Array.isArray(v) || !ok(v.length)) return FALLBACK;
        const out = new Array<unknown>(v.length);
        for (let i = 0; i < v.length; i++) {
          const item = element(v[i]);
          if (item === FALLBACK) return FALLBACK;
          out[i] = item;
        }
        return out;
      };
    }
    case 'record': {
      // Only string keys with no checks of their own (the definitions' records).
      const key = defOf(def.keyType!);
      if (key.type !== 'string' || Object.keys(key).some((k) => k !== 'type')) return undefined;
      const value = compile(def.valueType!);
      return (
        value &&
        ((v) => {
          if (!isPlainObject(v)) return FALLBACK;
          const out: Record<string, unknown> = {};
          for (const name of Object.keys(v)) {
            // Set as a property, `__proto__` would be the prototype: zod decides.
            if (name === '__proto__') return FALLBACK;
            const item = value(v[name]);
            if (item === FALLBACK) return FALLBACK;
            out[name] = item;
          }
          return out;
        })
      );
    }
    case 'object': {
      // Strict objects only (unknown keys refused): a catch-all of `never`.
      if (!def.catchall || defOf(def.catchall).type !== 'never') return undefined;
      const shape = def.shape!;
      const keys = Object.keys(shape);
      const checks = parts(keys.map((k) => shape[k]!));
      if (!checks) return undefined;
      return (v) => {
        if (!isPlainObject(v)) return FALLBACK;
        for (const name in v) if (!Object.hasOwn(shape, name)) return FALLBACK;
        // zod's output: the shape's keys in its order, a key given (even as undefined) kept.
        const out: Record<string, unknown> = {};
        for (let i = 0; i < keys.length; i++) {
          const name = keys[i]!;
          const given = Object.hasOwn(v, name);
          const item = checks[i]!(given ? v[name] : undefined);
          if (item === FALLBACK) return FALLBACK;
          if (given || item !== undefined) out[name] = item;
        }
        return out;
      };
    }
    case 'union': {
      // The first option that takes the value, as zod's union (a discriminated one tries only the
      // option its discriminator names, which is the only one whose literal can take it).
      const options = parts(def.options ?? []);
      return (
        options &&
        ((v) => {
          for (const option of options) {
            const out = option(v);
            if (out !== FALLBACK) return out;
          }
          return FALLBACK;
        })
      );
    }
    default:
      return undefined;
  }
}

/** `min_length`, `max_length` and `length_equals` checks, or undefined for any other check. */
function lengthChecks(def: Def): ((length: number) => boolean) | undefined {
  let min = 0;
  let max = Number.POSITIVE_INFINITY;
  for (const { _zod } of def.checks ?? []) {
    const c = _zod.def;
    if (c.check === 'min_length') min = Math.max(min, c.minimum as number);
    else if (c.check === 'max_length') max = Math.min(max, c.maximum as number);
    else if (c.check === 'length_equals') {
      min = Math.max(min, c.length as number);
      max = Math.min(max, c.length as number);
    } else return undefined;
  }
  return (length) => length >= min && length <= max;
}

/** Integer format and bounds, or undefined for any other check. */
function numberChecks(def: Def): ((value: number) => boolean) | undefined {
  const tests: Array<(value: number) => boolean> = [];
  for (const { _zod } of def.checks ?? []) {
    const c = _zod.def;
    if (c.check === 'number_format' && c.format === 'safeint') tests.push((v) => Number.isSafeInteger(v));
    else if (c.check === 'greater_than') {
      const bound = c.value as number;
      tests.push(c.inclusive ? (v) => v >= bound : (v) => v > bound);
    } else if (c.check === 'less_than') {
      const bound = c.value as number;
      tests.push(c.inclusive ? (v) => v <= bound : (v) => v < bound);
    } else return undefined;
  }
  return (v) => tests.every((test) => test(v));
}
