import { isExpression } from '../../expression/source.js';
import type { FunctionRule } from './reporter.js';

const PLACEHOLDER = /\{([^{}]*)\}/g;

/** Spec 4.2: `{name}` placeholders and `location: path` parameters match one to one; path parameters are required. */
export const pathParameters: FunctionRule = (file, r) => {
  const { url, parameters = {} } = file.definition;
  if (isExpression(url)) return; // computed at run time; nothing to match statically
  const placeholders = new Set<string>();
  for (const match of url.matchAll(PLACEHOLDER)) {
    const name = match[1]!;
    placeholders.add(name);
    if (parameters[name]?.location !== 'path') {
      const fix = parameters[name]
        ? `set 'location: path' on parameter '${name}'`
        : `add a parameter '${name}' with 'location: path' and 'required: true'`;
      r.report(
        'URL_PLACEHOLDER_UNDECLARED',
        `url placeholder {${name}} has no path parameter; ${fix}`,
        ['url'],
        {
          index: match.index,
        },
      );
    }
  }
  for (const [name, parameter] of Object.entries(parameters)) {
    if (parameter.location !== 'path') continue;
    if (!placeholders.has(name)) {
      r.report(
        'PATH_PARAM_UNUSED',
        `path parameter '${name}' does not appear in url; add {${name}} to the url or change its location`,
        ['parameters', name],
        { key: true },
      );
    }
    if (parameter.required !== true) {
      r.report(
        'PATH_PARAM_NOT_REQUIRED',
        `path parameter '${name}' must be required; add 'required: true'`,
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
  const start = url.indexOf('?');
  if (start === -1) return;
  // Names only: a value in a url could be a credential.
  const written = [...new URLSearchParams(url.slice(start + 1)).keys()];
  const replacements = Object.entries(parameters)
    .filter(([, p]) => p.location === 'query')
    .map(([name]) => name);
  const by =
    replacements.length > 0
      ? `the query parameters ${replacements.join(', ')}`
      : 'nothing (no parameter has location: query)';
  r.report(
    'URL_QUERY_REPLACED',
    `the query string in url (${written.join(', ') || 'empty'}) is removed at run time and replaced by ${by}; declare them as parameters with 'location: query'`,
    ['url'],
    { index: start },
  );
};
