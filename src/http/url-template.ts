/**
 * The parts of a `url` template that spec 4.2 treats differently:
 * - the *base* (scheme, host, port, and whatever the first placeholders there add): placeholders
 *   are substituted as written, then the result is checked (see `checkBase`);
 * - the *path*: placeholders are percent-encoded path values;
 * - the *query*: removed at run time (replaced by the `location: query` parameters), so its
 *   placeholders are never filled.
 */
export interface UrlTemplate {
  /** The template without its fragment: the text every index below points into. */
  readonly address: string;
  /** The literal scheme (`https`), when the template starts with one. */
  readonly scheme: string | undefined;
  /** Index where the path starts (the first `/` after the authority), or the query/end. */
  readonly pathAt: number;
  /** Index of the `?` that starts the written query string, or -1. */
  readonly queryAt: number;
  readonly placeholders: readonly Placeholder[];
}

export interface Placeholder {
  readonly name: string;
  /** Index of the `{` in the template. */
  readonly index: number;
  readonly part: 'base' | 'path' | 'query';
  /** A base placeholder that is the whole address part (`https://{host}/...`, `{base}/...`). */
  readonly wholeBase: boolean;
}

export const PLACEHOLDER = /\{([^{}]*)\}/g;

/**
 * Parsed templates by text: a function's url is parsed on every call. Bounded, as continuation
 * links (any text a service sends) are parsed too.
 */
const parsedTemplates = new Map<string, UrlTemplate>();
const MAX_CACHED_TEMPLATES = 256;

export function parseUrlTemplate(template: string): UrlTemplate {
  let parsed = parsedTemplates.get(template);
  if (!parsed) {
    parsed = parse(template);
    if (parsedTemplates.size >= MAX_CACHED_TEMPLATES) parsedTemplates.clear();
    parsedTemplates.set(template, parsed);
  }
  return parsed;
}

function parse(template: string): UrlTemplate {
  const withoutFragment = template.replace(/#.*$/s, '');
  const queryAt = withoutFragment.indexOf('?');
  const end = queryAt === -1 ? withoutFragment.length : queryAt;
  // Literal text only: a `/` inside a placeholder name does not end the base.
  const literal = withoutFragment.slice(0, end).replace(PLACEHOLDER, (m) => ' '.repeat(m.length));
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(literal);
  const authorityAt = scheme ? scheme[0].length : 0;
  const slash = literal.indexOf('/', authorityAt);
  const pathAt = slash === -1 ? end : slash;
  const placeholders: Placeholder[] = [];
  for (const match of template.matchAll(PLACEHOLDER)) {
    const index = match.index;
    const part = queryAt !== -1 && index > queryAt ? 'query' : index < pathAt ? 'base' : 'path';
    const wholeBase = part === 'base' && index === authorityAt && index + match[0].length === pathAt;
    placeholders.push(Object.freeze({ name: match[1]!, index, part, wholeBase }));
  }
  return Object.freeze({
    address: withoutFragment,
    scheme: scheme?.[1]?.toLowerCase(),
    pathAt,
    queryAt,
    placeholders: Object.freeze(placeholders),
  });
}

/** Characters a base placeholder value may not hold: they would move the value out of the address. */
const NOT_IN_BASE = /[\s@\\?#]/;
const HOST_LABEL = /^[A-Za-z0-9.-]+$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f]/;
const hasControl = (value: string) => CONTROL.test(value);

/**
 * Why a value cannot fill a base placeholder, or undefined when it can. The value may carry a host,
 * a port and a path prefix; it may not add a user name (`@`), a query or fragment, or whitespace.
 */
export function baseValueProblem(
  value: string,
  template: UrlTemplate,
  placeholder: Placeholder,
): string | undefined {
  if (value === '') return 'it is empty';
  // Part of a host name (`https://{tenant}.example.com`): only host-name characters, or a value
  // such as `attacker.net/` would move the request, credentials and all, to another host.
  if (!placeholder.wholeBase && !HOST_LABEL.test(value))
    return 'it fills part of the host name, so it may only hold letters, digits, `.` and `-`';
  if (template.scheme !== undefined && value.includes('://'))
    return `it names a scheme, but the url already starts with ${template.scheme}://`;
  if (NOT_IN_BASE.test(value) || hasControl(value))
    return 'it holds a character that does not belong in a host (@ \\ ? # or whitespace)';
  return undefined;
}

/**
 * Templates whose built addresses are known to pass `checkBuiltUrl`: one without a base placeholder
 * fixes the scheme, host and user part, and every value it takes is percent-encoded (path) or
 * form-encoded (query), so what the check looks at is the same for every address it builds. The
 * first address that passes stands for the rest; a template with a base placeholder is checked on
 * every build.
 */
const passedTemplates = new WeakSet<UrlTemplate>();

/** `checkBuiltUrl`, once per template where one check answers for every address (see above). */
export function builtUrlProblem(url: string, template: UrlTemplate): string | undefined {
  if (passedTemplates.has(template)) return undefined;
  const problem = checkBuiltUrl(url, template);
  if (problem === undefined && !template.placeholders.some((p) => p.part === 'base'))
    passedTemplates.add(template);
  return problem;
}

/**
 * Why the address built from a template is refused, or undefined: it must be free of control
 * characters, an absolute http(s) URL with a host, without a user name or password, and keep the template's scheme when the
 * template names one.
 */
export function checkBuiltUrl(url: string, template: UrlTemplate): string | undefined {
  // Parameter values arrive percent-encoded, so a control character here came from a `url`
  // expression or a next link. URL parsing would silently drop a CR/LF (sending another address
  // than the one traced); refuse it instead. Whitespace around the url (a YAML block scalar's
  // final line break) is only trimmed by the parser, as before.
  if (hasControl(url.trim()))
    return 'holds a control character (a line break, tab or similar); check the url expression or the link it read';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a valid absolute URL';
  }
  const scheme = parsed.protocol.slice(0, -1);
  if (scheme !== 'http' && scheme !== 'https') return `uses the scheme '${scheme}' (only http and https)`;
  if (template.scheme !== undefined && scheme !== template.scheme)
    return `changes the scheme from '${template.scheme}' to '${scheme}'`;
  if (parsed.username !== '' || parsed.password !== '') return 'carries a user name or password';
  if (parsed.hostname === '') return 'has no host';
  return undefined;
}
