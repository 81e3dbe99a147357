/** A value of parsed YAML as a mapping (a file being typed may hold anything): {} when it is none. */
export function objectOr(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
