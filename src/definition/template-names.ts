// The templates' names and default url without the templates themselves (templates.ts), which need
// the yaml library: the CLI names them in --help without loading it.

/**
 * Skeletons for new function files (spec 4.5). Each validates without findings; the credential
 * templates name a credential key that `restfn credentials set` stores (see the authentication docs).
 */
export const TEMPLATE_NAMES = ['rest', 'api-key', 'bearer', 'basic-auth', 'oauth', 'secret'] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];

export const DEFAULT_TEMPLATE_URL = 'https://api.example.com/items';

/** Templates for the files that use a function: `restfn new NAME --template datasource|action`. */
export const FILE_TEMPLATES = ['datasource', 'action'] as const;
export type FileTemplate = (typeof FILE_TEMPLATES)[number];

export type ActionMethod = 'create' | 'update' | 'save' | 'delete' | 'functionCall';
export const ACTION_METHODS: readonly ActionMethod[] = ['create', 'update', 'save', 'delete', 'functionCall'];
