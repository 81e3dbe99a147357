import { parseDocument, stringify } from 'yaml';
import { parseUrlTemplate } from '../http/url-template.js';
import { DEFAULT_TEMPLATE_URL, type TemplateName } from './template-names.js';

export { DEFAULT_TEMPLATE_URL, TEMPLATE_NAMES, type TemplateName } from './template-names.js';

// The url comes from the command line: written as a YAML scalar by the yaml library (quoted when it
// holds a line break, `#`, `: ` or quotes), so it can never add keys or comments to the file.
const HEAD = (description: string, url: string, method: string) => `# ${description}
provider: DATA_PROVIDER_REST
method: ${method}
${stringify({ url }, { lineWidth: 0, blockQuote: false })}format: json
`;

const BODY = `outputTransform: $
`;

const TEMPLATES: Record<TemplateName, (url: string, method: string) => string> = {
  rest: (
    url,
    method,
  ) => `${HEAD('REST call without authentication; the service returns JSON.', url, method)}parameters:
  limit:
    location: query
    type: number
    required: false
    value: 50
${BODY}`,

  'api-key': (
    url,
    method,
  ) => `${HEAD('REST call authenticated with an API key sent in the x-api-key header.', url, method)}parameters:
  x-api-key:
    location: header
    type: secret
    required: true
    # Key of the credential in the credentials store, not the API key itself.
    value: api-key
${BODY}`,

  bearer: (
    url,
    method,
  ) => `${HEAD('REST call with a static bearer token (Authorization: Bearer <token>).', url, method)}parameters:
  Authorization:
    location: header
    type: secret
    required: true
    # Key of a bearer credential: restfn credentials set bearer-token --kind bearer
    value: bearer-token
${BODY}`,

  'basic-auth': (
    url,
    method,
  ) => `${HEAD('REST call with basic authentication; username and password live in the credentials store.', url, method)}parameters:
  basicAuth:
    location: header
    type: secret
    required: true
    # Key of a basic credential (username and password) in the credentials store.
    value: basic-auth
${BODY}`,

  oauth: (
    url,
    method,
  ) => `${HEAD('REST call authenticated with an OAuth access token (Authorization: Bearer).', url, method)}parameters:
  accessToken:
    location: header
    # <provider>.oauth: the token comes from the OAuth flow of the named credential.
    type: custom.oauth
    required: true
    value: oauth
${BODY}`,

  secret: (
    url,
    method,
  ) => `${HEAD('REST call that sends a stored secret in a header (or set location to query, path or body).', url, method)}parameters:
  x-secret:
    location: header
    type: secret
    required: true
    # Key of the secret in the credentials store.
    value: secret
${BODY}`,
};

/**
 * The template's text for `url` and the HTTP `method` (upper case); each `{placeholder}` of the
 * url's address and path is declared as a required path parameter (the file validates as written,
 * and says what the caller must give). A query string in the url (`?per_page=2`) becomes query
 * parameters with those values as defaults, since a written query is replaced at run time
 * (URL_QUERY_REPLACED); they stand in for the plain template's example `limit`, which a method
 * other than GET also goes without (a page size means nothing to a PUT).
 */
export function renderTemplate(template: TemplateName, url = DEFAULT_TEMPLATE_URL, method = 'GET'): string {
  const { address, query } = splitQuery(url);
  const text = TEMPLATES[template](address, method);
  const placeholders = parseUrlTemplate(address).placeholders.filter((p) => p.part !== 'query');
  const dropLimit = template === 'rest' && (query.length > 0 || method !== 'GET');
  if (placeholders.length === 0 && query.length === 0 && !dropLimit) return text;
  const doc = parseDocument(text);
  for (const { name } of placeholders) {
    if (!doc.hasIn(['parameters', name]))
      doc.setIn(
        ['parameters', name],
        doc.createNode({ location: 'path', type: 'string', required: true }, { flow: true }),
      );
  }
  if (dropLimit) doc.deleteIn(['parameters', 'limit']);
  for (const [name, values] of query) {
    if (doc.hasIn(['parameters', name])) continue;
    doc.setIn(['parameters', name], doc.createNode(queryParameter(values), { flow: true }));
  }
  return doc.toString({ lineWidth: 0 });
}

/** The url without its query string, and the query's values by name (a repeated name: a list). */
function splitQuery(url: string): { address: string; query: Array<[string, string[]]> } {
  const at = parseUrlTemplate(url).queryAt;
  if (at === -1) return { address: url, query: [] };
  const byName = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(url.slice(at + 1).replace(/#.*$/s, ''))) {
    if (name === '') continue;
    byName.set(name, [...(byName.get(name) ?? []), value]);
  }
  return { address: url.slice(0, at), query: [...byName] };
}

/** A query parameter defaulting to the url's value: a number as a number; `{x}` has to be given. */
function queryParameter(values: string[]): Record<string, unknown> {
  const typed = (v: string) => (/^-?(0|[1-9]\d*)(\.\d+)?$/.test(v) ? Number(v) : v);
  if (values.length === 1 && /^\{[^{}]*\}$/.test(values[0]!))
    return { location: 'query', type: 'string', required: true };
  if (values.length > 1) return { location: 'query', type: 'array', value: values.map(typed) };
  const value = typed(values[0]!);
  return { location: 'query', type: typeof value === 'number' ? 'number' : 'string', value };
}
