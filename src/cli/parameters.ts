import { UsageError } from '../errors/restfn-error.js';

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `--params JSON` (keeps JSON types), then each `-p name=value` over it. */
export function parseParameters(
  pairs: readonly string[],
  json: string | undefined,
  flag = '-p',
): Record<string, unknown> {
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
    if (at <= 0) throw new UsageError(`${flag} takes name=value (got '${pair}')`);
    parameters[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return parameters;
}
