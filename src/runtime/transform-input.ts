import type { PlacedValue } from '../http/build-request.js';
import type { ResolvedParameter } from './parameters.js';

/**
 * What the transforms see as `$`. Real function files read more than the body or the parameter map:
 * `$.inputs.<name>.value` (the platform hands transforms each parameter as an object holding its
 * value) and, in `outputTransform`, `$$.headers.location` / `$$.status` (the response of a 201).
 *
 * These extras are added as non-enumerable properties of a shallow copy: JSONata's path lookup sees
 * them, but `$keys`, `$each`, `$string`, JSON output and structured clones do not, so a transform
 * that returns `$` (or spreads it) gives exactly the body or parameter map as before. A property of
 * the same name in the body or a parameter of that name wins over an extra.
 */

/** `$.inputs`: each parameter as `{ value }`. */
export type Inputs = Record<string, { value: unknown }>;

export function inputsOf(values: Readonly<Record<string, unknown>>): Inputs {
  const inputs: Inputs = {};
  for (const [name, value] of Object.entries(values)) inputs[name] = { value };
  return inputs;
}

/** `inputTransform`'s `$`: the parameter values by name, with `inputs`. */
export function parameterInput(values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return withExtras({ ...values }, { inputs: inputsOf(values) });
}

/**
 * `outputTransform`'s (and `errorTransform`'s) `$`: the parsed body with `headers`, `status` and
 * `inputs`. A body that is not an object (null after a 201 or 204, an array, a text) cannot carry
 * them: an empty object stands in when there is no body, so `$$.headers.location` still works; an
 * array or text is passed as it is (read `@ctx.response.headers` there).
 */
export function responseInput(
  body: unknown,
  response: { status: number; headers: Readonly<Record<string, string>> } | undefined,
  values: Readonly<Record<string, unknown>>,
): unknown {
  const extras = { headers: response?.headers ?? {}, status: response?.status, inputs: inputsOf(values) };
  if (body === null || body === undefined) return withExtras({}, extras);
  if (typeof body !== 'object' || Array.isArray(body)) return body;
  return withExtras({ ...(body as Record<string, unknown>) }, extras);
}

/** A transform that returned its input unchanged returns the body itself, not the stand-in. */
export function unwrapResult(result: unknown, input: unknown, body: unknown): unknown {
  return result === input && input !== body ? body : result;
}

function withExtras<T extends object>(target: T, extras: Record<string, unknown>): T {
  for (const [name, value] of Object.entries(extras)) {
    if (!Object.hasOwn(target, name)) {
      Object.defineProperty(target, name, { value, enumerable: false, configurable: true });
    }
  }
  return target;
}

/**
 * The parameter values `inputTransform` builds the body from. Credential parameters hold their key
 * until the call: a body credential is given the value its credential resolved to (the transform
 * is there to place it in the body, and must never send the key name instead); credentials placed
 * elsewhere (a header, the query) are left out, as they are sent where they are declared and a
 * transform has no reason to copy them into the body.
 */
export function transformValues(
  values: Readonly<Record<string, unknown>>,
  parameters: readonly ResolvedParameter[],
  placed: readonly PlacedValue[],
): Record<string, unknown> {
  const out = { ...values };
  for (const p of parameters) {
    if (!p.credential) continue;
    delete out[p.name];
    const resolved = placed.find((v) => v.secret && v.location === 'body' && v.name === p.name);
    if (p.location === 'body' && resolved) out[p.name] = resolved.value;
  }
  return out;
}
