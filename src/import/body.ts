/**
 * The `inputTransform` an import writes: JSONata building the JSON body from the body parameters
 * (`$` is the map of parameter name to value). Absent values drop out of a JSONata object, so an
 * optional property nobody gave is not sent.
 */

const KEYWORDS = new Set(['and', 'or', 'in', 'true', 'false', 'null', 'function']);

/** A reference to a parameter in JSONata: its bare name where JSONata reads one, else a `$lookup`. */
export function parameterReference(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !KEYWORDS.has(name)
    ? name
    : `$lookup($, ${JSON.stringify(name)})`;
}

/** `{ "property": parameter, ... }`, one property a line. */
export function objectBody(fields: ReadonlyArray<{ property: string; parameter: string }>): string {
  const lines = fields.map((f) => `  ${JSON.stringify(f.property)}: ${parameterReference(f.parameter)}`);
  return `{\n${lines.join(',\n')}\n}`;
}
