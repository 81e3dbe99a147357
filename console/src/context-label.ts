/**
 * A form label for a screen value an action reads, from its `@ctx` path, as a person would name it:
 * `current.item.customerId` is "Item customer id", `components.name-field.state.value` is "Name
 * field", `jig.inputs.ticket` is "Screen input ticket". Pure: the path itself is shown beside it.
 */
export function contextLabel(path: string): string {
  const [first = '', ...rest] = path.split('.');
  if (first === 'current' && rest[0] === 'item') return sentence(['Item', ...rest.slice(1).map(words)]);
  if (first === 'components' && rest.length > 0) {
    const [name = '', ...after] = rest;
    const field = words(name);
    const named = /\bfield$/.test(field) ? field : `${field} field`;
    // `state.value` is the field's value, what the label already says; another state is named.
    const state = after[0] === 'state' ? after.slice(1) : after;
    const what = state.length === 1 && state[0] === 'value' ? [] : state.map(words);
    return sentence([named, ...what]);
  }
  if ((first === 'jig' && rest[0] === 'inputs') || first === 'inputs')
    return sentence(['Screen input', ...(first === 'jig' ? rest.slice(1) : rest).map(words)]);
  if (first === 'record') return sentence(['Record', ...rest.map(words)]);
  if (first === 'action' && rest[0] === 'parameters')
    return sentence(['Action parameter', ...rest.slice(1).map(words)]);
  return sentence([first, ...rest].map(words));
}

/** `customerId`, `customer-id`, `customer_id`: "customer id". */
function words(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[-_]+/g, ' ')
    .trim()
    .toLowerCase();
}

function sentence(parts: readonly string[]): string {
  const text = parts.filter((p) => p !== '').join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * The screen values in the order a form asks for them: the record's key first (`id`, `itemId`,
 * `key`: what names the row), then the rest as the action reads them. Pure; a stable sort.
 */
export function keyFirst(paths: readonly string[]): string[] {
  const isKey = (path: string) => {
    const name = path.split('.').at(-1) ?? '';
    // `itemId`, `item_id`, `item-id`; not `valid` or `paid`.
    return /^(id|key)$/i.test(name) || /[a-z0-9](Id|ID|_id|-id)$/.test(name);
  };
  return [...paths.filter(isKey), ...paths.filter((p) => !isKey(p))];
}
