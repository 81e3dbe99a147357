/**
 * A JSON Schema (draft 2020-12) describing `value`, inferred from one example: what Show definition
 * offers for the output of a function after a preview. Arrays take the union of their items'
 * schemas; objects list every key they had as a property (all required: one example cannot tell).
 */
export function inferSchema(value: unknown): Record<string, unknown> {
  if (value === null) return { type: 'null' };
  if (Array.isArray(value)) {
    const items = value.map(inferSchema);
    const unique = [...new Map(items.map((s) => [JSON.stringify(s), s])).values()];
    return {
      type: 'array',
      ...(unique.length === 1 ? { items: unique[0] } : unique.length > 1 ? { items: { anyOf: unique } } : {}),
    };
  }
  switch (typeof value) {
    case 'string':
      return { type: 'string' };
    case 'number':
      return { type: Number.isInteger(value) ? 'integer' : 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'object': {
      const entries = Object.entries(value as Record<string, unknown>);
      return {
        type: 'object',
        properties: Object.fromEntries(entries.map(([k, v]) => [k, inferSchema(v)])),
        required: entries.map(([k]) => k),
      };
    }
    default:
      return {};
  }
}
