import type { z } from 'zod';

/**
 * Definition schemas checked without zod's machinery for data that passes (issue 29): zod's
 * `safeParse` was ~45 µs of every file `restfn validate`, `run` and a publish load, most of it
 * building results and issue lists for data that has no issue. Each schema is compiled once into
 * plain functions, one per node, giving zod's output (its object key order, defaults applied,
 * new objects and arrays, `unknown` values as they are). Whatever a compiled check does not accept,
 * and any schema part it does not know (a check kind, a refinement), is left to zod, which gives the
 * answer and the messages: the compiled check may only ever be stricter than zod, never looser.
 * test/definition/compiled-schema.test.ts holds it to zod's answers on valid and broken files.
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

const compiled = new WeakMap<z.ZodType, Check>();

/** `schema.safeParse(data)`, answered without zod when the data passes a compiled check. */
export function parseDefinition<T>(schema: z.ZodType<T>, data: unknown): z.ZodSafeParseResult<T> {
  const value = compile(schema)(data);
  if (value === FALLBACK) return schema.safeParse(data);
  return { success: true, data: value as T };
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Map);

/**
 * The check of one schema node (compiled once: nodes are shared, `expression` by many), its output
 * or FALLBACK. A node met again while it is being compiled (a recursive schema) calls through.
 */
function compile(schema: z.ZodType): Check {
  const known = compiled.get(schema);
  if (known) return known;
  let check: Check | undefined;
  compiled.set(schema, (v) => check!(v));
  check = build(defOf(schema));
  compiled.set(schema, check);
  return check;
}

function build(def: Def): Check {
  switch (def.type) {
    case 'string': {
      const ok = lengthChecks(def);
      if (!ok) return () => FALLBACK;
      return (v) => (typeof v === 'string' && ok(v.length) ? v : FALLBACK);
    }
    case 'number': {
      const ok = numberChecks(def);
      if (!ok) return () => FALLBACK;
      return (v) => (typeof v === 'number' && Number.isFinite(v) && ok(v) ? v : FALLBACK);
    }
    case 'boolean':
      return noChecks(def, (v) => (typeof v === 'boolean' ? v : FALLBACK));
    case 'unknown':
    case 'any':
      return noChecks(def, (v) => v);
    case 'literal': {
      const values = def.values ?? [];
      return noChecks(def, (v) => (values.includes(v) ? v : FALLBACK));
    }
    case 'enum': {
      const values = Object.values(def.entries ?? {});
      return noChecks(def, (v) => (values.includes(v) ? v : FALLBACK));
    }
    case 'optional': {
      const inner = compile(def.innerType!);
      return noChecks(def, (v) => (v === undefined ? undefined : inner(v)));
    }
    case 'nullable': {
      const inner = compile(def.innerType!);
      return noChecks(def, (v) => (v === null ? null : inner(v)));
    }
    case 'default': {
      const inner = compile(def.innerType!);
      const fallback = def.defaultValue;
      // Only a plain value is handed out as it is (an object default would be shared).
      if (fallback !== null && typeof fallback === 'object') return () => FALLBACK;
      return noChecks(def, (v) => (v === undefined ? fallback : inner(v)));
    }
    case 'array': {
      const element = compile(def.element!);
      const ok = lengthChecks(def);
      if (!ok) return () => FALLBACK;
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
      if (key.type !== 'string' || (key.checks?.length ?? 0) > 0) return () => FALLBACK;
      const value = compile(def.valueType!);
      return noChecks(def, (v) => {
        if (!isRecord(v)) return FALLBACK;
        const out: Record<string, unknown> = {};
        for (const name of Object.keys(v)) {
          // Set as a property, `__proto__` would be the prototype: zod decides.
          if (name === '__proto__') return FALLBACK;
          const item = value(v[name]);
          if (item === FALLBACK) return FALLBACK;
          out[name] = item;
        }
        return out;
      });
    }
    case 'object': {
      // Strict objects only (unknown keys refused): a catch-all of `never`.
      if (!def.catchall || defOf(def.catchall).type !== 'never') return () => FALLBACK;
      const shape = def.shape!;
      const keys = Object.keys(shape);
      const checks = keys.map((k) => compile(shape[k]!));
      return noChecks(def, (v) => {
        if (!isRecord(v)) return FALLBACK;
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
      });
    }
    case 'union': {
      // The first option that takes the value, as zod's union (a discriminated one tries only the
      // option its discriminator names, which is the only one whose literal can take it).
      const options = (def.options ?? []).map(compile);
      return noChecks(def, (v) => {
        for (const option of options) {
          const out = option(v);
          if (out !== FALLBACK) return out;
        }
        return FALLBACK;
      });
    }
    default:
      // A kind not compiled (a pipe, a transform, a lazy schema...): zod decides.
      return () => FALLBACK;
  }
}

/** A node with checks this does not compile falls back whole. */
function noChecks(def: Def, check: Check): Check {
  return (def.checks?.length ?? 0) > 0 ? () => FALLBACK : check;
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
