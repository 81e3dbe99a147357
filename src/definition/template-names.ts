// The templates' names and default url without the templates themselves (templates.ts), which need
// the yaml library: the CLI names them in --help without loading it.

/**
 * Skeletons for new function files (spec 4.5). Each validates without findings; the credential
 * templates name a credential key that `restfn credentials set` stores (see the authentication docs).
 */
export const TEMPLATE_NAMES = ['rest', 'api-key', 'bearer', 'basic-auth', 'oauth', 'secret'] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];

export const DEFAULT_TEMPLATE_URL = 'https://api.example.com/items';
