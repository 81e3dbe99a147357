import { closest } from '../definition/suggest.js';
import { UsageError } from '../errors/restfn-error.js';

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `--params JSON` (keeps JSON types), then each `-p name=value` over it. */
export function parseParameters(pairs: readonly string[], json: string | undefined): Record<string, unknown> {
  // No prototype: `-p __proto__=x` is a name like any other (and then refused as unknown).
  const parameters: Record<string, unknown> = Object.create(null);
  if (json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      throw new UsageError('--params must be a JSON object, for example --params \'{"id": "42"}\'');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new UsageError('--params must be a JSON object, for example --params \'{"id": "42"}\'');
    }
    // JSON.parse makes `__proto__` an own property; copy it as one.
    for (const [name, value] of Object.entries(parsed)) parameters[name] = value;
  }
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`-p takes name=value (got '${pair}')`);
    parameters[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return parameters;
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
  throw new UsageError(
    `function '${functionName}' has no parameter ${described.join(', ')}: ${known}`,
    'PARAMETER_UNKNOWN',
  );
}
