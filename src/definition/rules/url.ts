import { isExpression } from '../../expression/source.js';
import {
  baseValueProblem,
  checkBuiltUrl,
  PLACEHOLDER,
  parseUrlTemplate,
  type UrlTemplate,
} from '../../http/url-template.js';
import type { FunctionRule } from './reporter.js';

/** Three rules read the same url in a row: it is parsed once (the last one is kept). */
let last: { url: string; template: UrlTemplate } | undefined;
function templateOf(url: string): UrlTemplate {
  if (last?.url !== url) last = { url, template: parseUrlTemplate(url) };
  return last.template;
}

/**
 * Spec 4.2: `{name}` placeholders take the `location: path` parameters of that name. Placeholders in
 * the written query string need none (that query is replaced at run time: see `urlQuery`). A path
 * parameter the url does not use is still seen by transforms and expressions: a warning.
 */
export const pathParameters: FunctionRule = (file, r) => {
  const { url, parameters = {} } = file.definition;
  if (isExpression(url)) return; // computed at run time; nothing to match statically
  const template = templateOf(url);
  const used = new Set<string>();
  for (const placeholder of template.placeholders) {
    if (placeholder.part === 'query') continue;
    const { name } = placeholder;
    used.add(name);
    const parameter = parameters[name];
    if (parameter?.location !== 'path') {
      const fix = parameter
        ? `set 'location: path' on parameter '${name}'`
        : `add a parameter '${name}' with 'location: path' and 'required: true'`;
      r.report(
        'URL_PLACEHOLDER_UNDECLARED',
        `url placeholder {${name}} has no path parameter; ${fix}`,
        ['url'],
        {
          index: placeholder.index,
        },
      );
      continue;
    }
    // A fixed value for the host part is checked now rather than on the first call.
    const problem =
      placeholder.part === 'base' && typeof parameter.value === 'string' && !isExpression(parameter.value)
        ? baseValueProblem(parameter.value, template, placeholder)
        : undefined;
    if (problem) {
      r.report(
        'URL_BASE_VALUE',
        `parameter '${name}' fills {${name}} in the address part of url, but its value cannot: ${problem}; give it a host (and port or path prefix) only`,
        ['parameters', name, 'value'],
      );
    }
  }
  for (const [name, parameter] of Object.entries(parameters)) {
    if (parameter.location !== 'path') continue;
    if (!used.has(name)) {
      r.report(
        'PATH_PARAM_UNUSED',
        `path parameter '${name}' does not appear in url, so it is not sent; transforms and expressions still see it (@ctx.parameters.${name}). Add {${name}} to the url, or use 'location: output' to say it is never sent`,
        ['parameters', name],
        { key: true },
      );
    } else if (parameter.required !== true && parameter.value === undefined) {
      // A default (`value`, fixed or an expression) fills the placeholder when the caller gives
      // nothing: such a parameter is never missing (conventions.md, "required or with a default").
      r.report(
        'PATH_PARAM_NOT_REQUIRED',
        `path parameter '${name}' is neither required nor given a default, so the url cannot be built without a caller's value; add 'required: true' or a default 'value'`,
        ['parameters', name],
        { key: true },
      );
    }
  }
};

/** Spec 4.2 rule 2: a query string written in the url is dropped and replaced by the query parameters. */
export const urlQuery: FunctionRule = (file, r) => {
  const { url, parameters = {} } = file.definition;
  if (isExpression(url)) return;
  const template = templateOf(url);
  if (template.queryAt === -1) return;
  // Names only: a value in a url could be a credential.
  const written = [...new URLSearchParams(template.address.slice(template.queryAt + 1)).keys()];
  const placeholders = template.placeholders.filter((p) => p.part === 'query').map((p) => `{${p.name}}`);
  const replacements = Object.entries(parameters)
    .filter(([, p]) => p.location === 'query')
    .map(([name]) => name);
  const by =
    replacements.length > 0
      ? `the query parameters ${replacements.join(', ')}`
      : 'nothing (no parameter has location: query)';
  const unfilled =
    placeholders.length > 0 ? `; its placeholders ${placeholders.join(', ')} are never filled` : '';
  r.report(
    'URL_QUERY_REPLACED',
    `the query string in url (${written.join(', ') || 'empty'}) is removed at run time and replaced by ${by}${unfilled}; declare them as parameters with 'location: query'`,
    ['url'],
    { index: template.queryAt },
  );
};

/**
 * A written url must be an absolute http(s) address: restfn refuses anything else when it builds
 * the request (`INVALID_URL`), so an `ftp:` or `file:` url, a missing scheme or a line break is
 * reported here, before the first call, instead of failing at run time. A url whose address part
 * is one placeholder (`{base}/items`) gets its scheme from a value, checked at run time.
 */
export const urlAddress: FunctionRule = (file, r) => {
  const { url } = file.definition;
  if (isExpression(url)) return;
  const problem = urlProblem(url);
  if (problem)
    r.report('URL_INVALID', `url ${problem}; write an address such as https://api.example.com/items`, [
      'url',
    ]);
};

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why a written url can never build a request, or undefined. Pure, for the rule and its tests. */
export function urlProblem(url: string): string | undefined {
  const control = url.search(CONTROL);
  // The URL parser drops tabs and line breaks silently: they are a pasting mistake or an injection.
  if (control !== -1)
    return `holds a control character (code ${url.charCodeAt(control)}) at position ${control + 1}`;
  const template = templateOf(url);
  if (template.placeholders.some((p) => p.wholeBase && p.index === 0)) return undefined;
  // Placeholders stand for one ordinary character each: only the written text is judged.
  const sample = template.address.replace(PLACEHOLDER, 'x');
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(sample)?.[1]?.toLowerCase();
  if (scheme === undefined) return 'has no scheme (http:// or https://)';
  if (scheme !== 'http' && scheme !== 'https') return `uses the scheme '${scheme}:' (only http and https)`;
  return checkBuiltUrl(sample, template);
}
