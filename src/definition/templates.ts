import { parseDocument, stringify } from 'yaml';
import { parseUrlTemplate } from '../http/url-template.js';
import { DEFAULT_TEMPLATE_URL, type TemplateName } from './template-names.js';

export { DEFAULT_TEMPLATE_URL, TEMPLATE_NAMES, type TemplateName } from './template-names.js';

// The url comes from the command line: written as a YAML scalar by the yaml library (quoted when it
// holds a line break, `#`, `: ` or quotes), so it can never add keys or comments to the file.
const HEAD = (description: string, url: string) => `# ${description}
provider: DATA_PROVIDER_REST
method: GET
${stringify({ url }, { lineWidth: 0, blockQuote: false })}format: json
`;

const BODY = `outputTransform: $
`;

const TEMPLATES: Record<TemplateName, (url: string) => string> = {
  rest: (url) => `${HEAD('REST call without authentication; the service returns JSON.', url)}parameters:
  limit:
    location: query
    type: number
    required: false
    value: 50
${BODY}`,

  'api-key': (
    url,
  ) => `${HEAD('REST call authenticated with an API key sent in the x-api-key header.', url)}parameters:
  x-api-key:
    location: header
    type: secret
    required: true
    # Key of the credential in the credentials store, not the API key itself.
    value: api-key
${BODY}`,

  bearer: (
    url,
  ) => `${HEAD('REST call with a static bearer token (Authorization: Bearer <token>).', url)}parameters:
  Authorization:
    location: header
    type: secret
    required: true
    # Key of a bearer credential: restfn credentials set bearer-token --kind bearer
    value: bearer-token
${BODY}`,

  'basic-auth': (
    url,
  ) => `${HEAD('REST call with basic authentication; username and password live in the credentials store.', url)}parameters:
  basicAuth:
    location: header
    type: secret
    required: true
    # Key of a basic credential (username and password) in the credentials store.
    value: basic-auth
${BODY}`,

  oauth: (
    url,
  ) => `${HEAD('REST call authenticated with an OAuth access token (Authorization: Bearer).', url)}parameters:
  accessToken:
    location: header
    # <provider>.oauth: the token comes from the OAuth flow of the named credential.
    type: custom.oauth
    required: true
    value: oauth
${BODY}`,

  secret: (
    url,
  ) => `${HEAD('REST call that sends a stored secret in a header (or set location to query, path or body).', url)}parameters:
  x-secret:
    location: header
    type: secret
    required: true
    # Key of the secret in the credentials store.
    value: secret
${BODY}`,
};

/**
 * The template's text for `url`; each `{placeholder}` of the url's address and path is declared as
 * a required path parameter (the file validates as written, and says what the caller must give).
 */
export function renderTemplate(template: TemplateName, url = DEFAULT_TEMPLATE_URL): string {
  const text = TEMPLATES[template](url);
  const placeholders = parseUrlTemplate(url).placeholders.filter((p) => p.part !== 'query');
  if (placeholders.length === 0) return text;
  const doc = parseDocument(text);
  for (const { name } of placeholders) {
    if (!doc.hasIn(['parameters', name]))
      doc.setIn(
        ['parameters', name],
        doc.createNode({ location: 'path', type: 'string', required: true }, { flow: true }),
      );
  }
  return doc.toString({ lineWidth: 0 });
}
