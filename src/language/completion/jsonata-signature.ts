const TYPES: Readonly<Record<string, string>> = {
  b: 'boolean',
  n: 'number',
  s: 'string',
  l: 'null',
  a: 'array',
  o: 'object',
  f: 'function',
  j: 'json',
  x: 'any',
  u: 'boolean|number|string|null',
};

/**
 * A JSONata signature (`<s-nn?:s>`) as people read it: `$substring(string, number, number?): string`.
 * `-` (the argument may be left out for the context value) is not shown; an unknown form is shown raw.
 */
export function readableSignature(name: string, signature: string): string {
  if (!signature.startsWith('<') || !signature.endsWith('>')) return `$${name}${signature}`;
  const inner = signature.slice(1, -1);
  const colon = topLevelColon(inner);
  try {
    const params = parseTypes(colon === -1 ? inner : inner.slice(0, colon));
    const result = colon === -1 ? undefined : parseTypes(inner.slice(colon + 1)).join(', ');
    return `$${name}(${params.join(', ')})${result ? `: ${result}` : ''}`;
  } catch {
    return `$${name}${signature}`;
  }
}

function parseTypes(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  const one = (): string => {
    const c = text[i++];
    if (c === undefined) throw new Error('end');
    let type: string;
    if (c === '(') {
      const parts: string[] = [];
      while (text[i] !== ')') parts.push(one());
      i++;
      type = parts.join('|');
    } else {
      const named = TYPES[c];
      if (!named) throw new Error(`unknown ${c}`);
      type = named;
    }
    if (text[i] === '<') {
      const end = closing(text, i);
      // A function's own signature (`f<s:o>`) is left out: `function` says enough here.
      if (type !== 'function') type = `${type}<${parseTypes(text.slice(i + 1, end)).join(', ')}>`;
      i = end + 1;
    }
    return type;
  };
  while (i < text.length) {
    let type = one();
    while (text[i] === '?' || text[i] === '+' || text[i] === '-') {
      const mod = text[i++];
      if (mod === '?') type += '?';
      if (mod === '+') type += '...';
    }
    out.push(type);
  }
  return out;
}

/** The index of the `>` closing the `<` at `open`. */
function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '<') depth++;
    if (text[i] === '>' && --depth === 0) return i;
  }
  throw new Error('unclosed');
}

function topLevelColon(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '<') depth++;
    else if (text[i] === '>') depth--;
    else if (text[i] === ':' && depth === 0) return i;
  }
  return -1;
}
