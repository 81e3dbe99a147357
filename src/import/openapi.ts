import { objectBody, parameterReference } from './body.js';
import { ImportError } from './errors.js';
import { asObject, describeSchema, firstLine, objectShape, restfnType, type Schema } from './json-schema.js';
import { literal } from './literal.js';
import type {
  ImportedCredential,
  ImportedDescription,
  ImportedOperation,
  ImportedParameter,
} from './model.js';
import { ParameterSet } from './parameter-set.js';
import { credentialFor, credentialKey, type SchemeSpec } from './security.js';
import type { SourceDocument } from './source.js';
import { type ImportVariables, MISSING_ADDRESS } from './variables.js';

const CALLABLE = ['DELETE', 'GET', 'HEAD', 'PUT', 'PATCH', 'POST'] as const;
type Callable = (typeof CALLABLE)[number];
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
/** Header parameters OpenAPI 3 says to ignore: the media types and the security schemes set them. */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);
const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json\s*(?:;.*)?$/i;

/**
 * OpenAPI 3.0/3.1 and Swagger 2.0: `@readme/openapi-parser` reads the file (JSON or YAML) and
 * dereferences every `$ref` (local files too; never the network), then each operation of `paths`
 * becomes one function.
 */
export async function readOpenApi(
  source: SourceDocument,
  vars: ImportVariables,
): Promise<ImportedDescription> {
  const api = await dereferenced(source);
  const swagger = source.format === 'swagger';
  const operations: ImportedOperation[] = [];
  const skipped: Array<{ route: string; reason: string }> = [];
  const schemes =
    asObject(swagger ? api.securityDefinitions : asObject(api.components)?.securitySchemes) ?? {};
  let base: string | undefined;
  const swaggerBase = () => (base ??= swaggerBaseUrl(api, vars));
  for (const [path, pathValue] of Object.entries(asObject(api.paths) ?? {})) {
    const pathItem = asObject(pathValue);
    if (!pathItem) continue;
    for (const [method, opValue] of Object.entries(pathItem)) {
      const op = asObject(opValue);
      if (!HTTP_METHODS.has(method) || !op) continue;
      const upper = method.toUpperCase();
      const route = `${upper} ${path}`;
      if (!(CALLABLE as readonly string[]).includes(upper)) {
        skipped.push({ route, reason: `restfn calls only ${CALLABLE.join(', ')}` });
        continue;
      }
      const server = swagger ? swaggerBase() : serverUrl(api, pathItem, op, vars, route);
      operations.push(
        operation({ api, swagger, schemes, path, pathItem, op, method: upper as Callable, route, server }),
      );
    }
  }
  const info = asObject(api.info);
  const title = typeof info?.title === 'string' ? info.title : '';
  return { format: source.format, formatName: source.formatName, title, operations, skipped };
}

async function dereferenced(source: SourceDocument): Promise<Schema> {
  const { dereference } = await import('@readme/openapi-parser');
  try {
    // No $ref to a web address is read: the http resolver reads nothing (the parser merges this over
    // its own; `http: false` is ignored by it and still looked the host up in DNS). Such a $ref
    // then fails as unresolved, before any lookup (an import reads local files only).
    const options = {
      resolve: { external: true, http: { canRead: () => false } },
    } as unknown as Parameters<typeof dereference>[1];
    return (await dereference(source.path, options)) as unknown as Schema;
  } catch (error) {
    throw parserError(source, error);
  }
}

/** The parser's failures as coded errors that say which `$ref` and how to fix it. */
function parserError(source: SourceDocument, error: unknown): ImportError {
  const e = (error ?? {}) as {
    code?: string;
    message?: string;
    targetRef?: string;
    parentPath?: string;
    ioErrorCode?: string;
    source?: string;
  };
  const message = String(e.message ?? error);
  if (e.code === 'EMISSINGPOINTER') {
    const where = e.parentPath ? ` at ${e.parentPath}` : '';
    return new ImportError(
      'IMPORT_REF_UNRESOLVED',
      `${source.shown}: the $ref '${e.targetRef ?? '?'}'${where} points to nothing (${message}); fix the reference or add what it names`,
      { cause: error },
    );
  }
  if (e.code === 'ERESOLVER') {
    return new ImportError(
      'IMPORT_REF_UNRESOLVED',
      `${source.shown}: a $ref names ${e.source ?? 'a file'}, which cannot be read (${e.ioErrorCode ?? message}); put the file there or fix the reference`,
      { cause: error },
    );
  }
  const ref = /Unable to resolve \$ref pointer "([^"]*)"/.exec(message)?.[1];
  if (ref !== undefined) {
    const remote = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(ref) && !/^file:/i.test(ref);
    return new ImportError(
      'IMPORT_REF_UNRESOLVED',
      remote
        ? `${source.shown}: the $ref '${ref}' is a web address; restfn import reads local files only: download it and point the $ref at the local copy`
        : `${source.shown}: the $ref '${ref}' cannot be resolved; fix the reference`,
      { cause: error },
    );
  }
  return new ImportError(
    'IMPORT_FORMAT',
    `${source.shown} cannot be read as ${source.formatName} (${firstLine(message, 300) ?? 'no detail'}); fix the description`,
    { cause: error },
  );
}

/** Swagger 2.0: `schemes[0]://host basePath` (https when offered), or `--var baseUrl`. */
function swaggerBaseUrl(api: Schema, vars: ImportVariables): string {
  const given = vars.get('baseUrl');
  if (given !== undefined) return given;
  const host = typeof api.host === 'string' ? api.host : undefined;
  const basePath = typeof api.basePath === 'string' ? api.basePath : '';
  if (!host) {
    vars.miss('baseUrl', `https://HOST${basePath}`, "the description names no host (Swagger 'host')");
    return MISSING_ADDRESS;
  }
  const schemes = Array.isArray(api.schemes) ? api.schemes.map(String) : [];
  const scheme = schemes.includes('https') || schemes.length === 0 ? 'https' : schemes[0];
  return `${scheme}://${host}${basePath}`;
}

/**
 * OpenAPI 3: the first server of the operation, else of its path, else of the description; its
 * `{variables}` filled from `--var`, else their defaults. `--var baseUrl` replaces the whole address
 * (unless a server variable is itself called `baseUrl`); a relative server address needs it, and a
 * scheme-relative one (`//host/path`) is taken as https.
 */
function serverUrl(api: Schema, pathItem: Schema, op: Schema, vars: ImportVariables, route: string): string {
  const list = [op.servers, pathItem.servers, api.servers].find((s) => Array.isArray(s) && s.length > 0) as
    | unknown[]
    | undefined;
  const server = asObject(list?.[0]);
  const template = typeof server?.url === 'string' ? server.url : '/';
  const variables = asObject(server?.variables) ?? {};
  const filled = template.replace(/\{([^{}]*)\}/g, (_, name: string) => {
    const given = vars.get(name);
    if (given !== undefined) return given;
    const fallback = asObject(variables[name])?.default;
    if (fallback !== undefined && fallback !== null) return String(fallback);
    const choices = asObject(variables[name])?.enum;
    const listed = Array.isArray(choices) && choices.length > 0 ? choices.map(String) : undefined;
    vars.miss(
      name,
      listed?.[0] ?? 'VALUE',
      `a variable of the server address '${template}', with no default${listed ? `, one of ${listed.join(', ')}` : ''}, used by ${route}`,
    );
    return 'missing';
  });
  if (!Object.hasOwn(variables, 'baseUrl')) {
    const given = vars.get('baseUrl');
    if (given !== undefined) return given;
  }
  // A scheme-relative address (`//api.example.com/v1`) is the host's, over https.
  if (filled.startsWith('//')) return `https:${filled}`;
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(filled)) {
    vars.miss(
      'baseUrl',
      `https://HOST${filled === '/' ? '' : filled}`,
      `the server address '${filled}' is relative: the address the paths are appended to`,
    );
    return MISSING_ADDRESS;
  }
  return filled;
}

interface OperationInput {
  readonly api: Schema;
  readonly swagger: boolean;
  readonly schemes: Schema;
  readonly path: string;
  readonly pathItem: Schema;
  readonly op: Schema;
  readonly method: Callable;
  readonly route: string;
  readonly server: string;
}

function operation(input: OperationInput): ImportedOperation {
  const { api, swagger, path, pathItem, op, method, route, server } = input;
  const notes: string[] = [];
  const credentials = security(input, notes);
  const set = new ParameterSet(credentials);
  const declared = mergedParameters(pathItem.parameters, op.parameters);
  let body: Schema | undefined;
  const formFields: string[] = [];
  for (const p of declared) {
    const where = String(p.in);
    const name = typeof p.name === 'string' ? p.name : '';
    if (where === 'body') body = p;
    else if (where === 'formData') formFields.push(name);
    else if (where === 'cookie')
      notes.push(`cookie parameter '${name}' is not imported: restfn sends no cookies`);
    else if (where === 'header' && !swagger && IGNORED_HEADERS.has(name.toLowerCase()))
      notes.push(
        `header parameter '${name}' is not imported: OpenAPI ignores it (media types and security schemes set it)`,
      );
    else if (where === 'path' || where === 'query' || where === 'header')
      set.add(parameter(p, where, name, swagger, notes));
  }
  // Placeholders of the path that the description declares no parameter for (it happens): a
  // required string each, or the function would not validate.
  for (const match of path.matchAll(/\{([^{}]+)\}/g)) {
    const name = match[1]!;
    if (!declared.some((p) => p.in === 'path' && p.name === name)) {
      set.add({ name, location: 'path', type: 'string', required: true });
      notes.push(
        `path parameter '${name}' is not declared in the description: imported as a required string`,
      );
    }
  }
  let inputTransform: string | undefined;
  let bodyType: string | undefined;
  if (swagger) {
    const consumes = (
      Array.isArray(op.consumes) ? op.consumes : Array.isArray(api.consumes) ? api.consumes : []
    ).map(String);
    const json = consumes.length === 0 || consumes.some((c) => JSON_MEDIA.test(c));
    if (body && json)
      inputTransform = bodyParameters(set, body.schema, body.required === true, body.description);
    else if (body) {
      bodyType = consumes[0] ?? 'application/octet-stream';
      inputTransform = wholeBody(set, body.schema, bodyType, body.required === true, body.description);
    }
    if (formFields.length > 0) {
      // Form fields (Swagger's formData): a url-encoded form, or multipart form data when the
      // description says so or a field is a file.
      const fields = declared.filter((p) => p.in === 'formData');
      const multipart =
        consumes.some((c) => /^multipart\/form-data/i.test(c)) || fields.some((p) => p.type === 'file');
      inputTransform = formParameters(set, fields);
      bodyType = multipart ? 'multipart/form-data' : 'application/x-www-form-urlencoded';
    }
  } else {
    // A GET or HEAD sends no body (restfn never does): a description's body on one is left out.
    const requestBody = method === 'GET' || method === 'HEAD' ? undefined : asObject(op.requestBody);
    if (op.requestBody !== undefined && requestBody === undefined)
      notes.push(`the request body is not imported: a ${method} request carries none`);
    const content = asObject(requestBody?.content) ?? {};
    const types = Object.keys(content);
    // JSON first, then a form, multipart form data, and any other type as a whole body.
    const chosen =
      types.find((t) => JSON_MEDIA.test(t)) ??
      types.find((t) => /^application\/x-www-form-urlencoded/i.test(t)) ??
      types.find((t) => /^multipart\/form-data/i.test(t)) ??
      types.find((t) => t === '*/*') ??
      types[0];
    if (requestBody && chosen) {
      const schema = asObject(content[chosen])?.schema;
      const whole =
        !JSON_MEDIA.test(chosen) &&
        !/^(application\/x-www-form-urlencoded|multipart\/form-data)/i.test(chosen) &&
        chosen !== '*/*';
      inputTransform = whole
        ? wholeBody(set, schema, chosen, requestBody.required === true, requestBody.description)
        : bodyParameters(
            set,
            schema,
            requestBody.required === true,
            requestBody.description,
            /^(application\/x-www-form-urlencoded|multipart\/form-data)/i.test(chosen)
              ? { encoding: asObject(asObject(content[chosen])?.encoding) ?? {} }
              : undefined,
          );
      if (chosen !== '*/*' && !/^application\/json\s*$/i.test(chosen)) bodyType = chosen;
    }
  }
  if (bodyType !== undefined && !set.taken('Content-Type', 'header')) {
    // A type with a wildcard (`image/*`) is the caller's to name.
    const concrete = !bodyType.includes('*');
    set.add({
      name: 'Content-Type',
      location: 'header',
      type: 'string',
      required: true,
      ...(concrete ? { value: bodyType } : {}),
      ...(concrete ? {} : { comment: `the body's media type: ${bodyType}` }),
    });
  }
  if (op.deprecated === true) notes.push('the operation is deprecated in the description');
  notes.push(...set.notes);
  const id = typeof op.operationId === 'string' && op.operationId !== '' ? op.operationId : route;
  return {
    id,
    route,
    method,
    nameFrom: id,
    nameFallback: route,
    tags: Array.isArray(op.tags) ? op.tags.map(String) : [],
    summary: firstLine(op.summary) ?? firstLine(op.description),
    url: `${server.replace(/\/+$/, '')}${path.startsWith('/') ? path : `/${path}`}`,
    format: responseFormat(api, op, swagger),
    parameters: set.parameters,
    inputTransform,
    credentials,
    notes,
  };
}

/** The path's parameters with the operation's over them (same name and place: the operation's wins). */
function mergedParameters(fromPath: unknown, fromOperation: unknown): Schema[] {
  const merged = new Map<string, Schema>();
  for (const list of [fromPath, fromOperation]) {
    if (!Array.isArray(list)) continue;
    for (const value of list) {
      const p = asObject(value);
      if (p) merged.set(`${String(p.in)}\n${String(p.name)}`, p);
    }
  }
  return [...merged.values()];
}

function parameter(
  p: Schema,
  location: 'path' | 'query' | 'header',
  name: string,
  swagger: boolean,
  notes: string[],
): ImportedParameter {
  // Swagger 2 keeps the schema's keywords on the parameter itself; OpenAPI 3 in `schema` (or `content`).
  const schema = swagger
    ? p
    : (asObject(p.schema) ?? asObject(asObject(Object.values(asObject(p.content) ?? {})[0])?.schema) ?? {});
  let type = restfnType(schema);
  const extra: string[] = [];
  // How a list or object goes in the query, as the description says: restfn's `style` and
  // `explode` (a list repeats the key without them). Swagger's tab-separated lists have no style:
  // one text.
  let style: ImportedParameter['style'];
  let explode: boolean | undefined;
  // An untyped parameter (oneOf/anyOf) keeps the style it declares: its value may be a list or an object.
  const untypedStyled = type === undefined && !swagger && typeof p.style === 'string';
  if (location === 'query' && (type === 'array' || type === 'object' || untypedStyled)) {
    if (swagger) {
      const format = String(p.collectionFormat ?? 'csv');
      if (format === 'csv') [style, explode] = ['form', false];
      else if (format === 'ssv') style = 'spaceDelimited';
      else if (format === 'pipes') style = 'pipeDelimited';
      else if (format === 'tsv') {
        type = 'string';
        extra.push('several values are sent joined with a tab: give them as one text');
        notes.push(
          `query parameter '${name}' is a list sent as one text (joined with a tab), so it is imported as a string`,
        );
      }
    } else {
      const given = typeof p.style === 'string' ? p.style : 'form';
      if (given === 'deepObject' || given === 'pipeDelimited' || given === 'spaceDelimited') style = given;
      else if (p.explode === false) [style, explode] = ['form', false];
      // form with explode (the default): a list repeats the key (restfn's default too); an object's
      // keys become parameters of their own, which restfn does only when told.
      else if (type === 'object') style = 'form';
    }
  }
  if (p.deprecated === true) extra.push('deprecated');
  const required = location === 'path' || p.required === true;
  const fallback = schema.default;
  return {
    name,
    location,
    type,
    required,
    value: fallback === undefined || fallback === null ? undefined : literal(fallback),
    comment: describeSchema(p.description, schema, extra),
    ...(style !== undefined ? { style } : {}),
    ...(explode !== undefined ? { explode } : {}),
  };
}

/** Swagger 2's form fields: one body parameter each (a `file` field a file), and the transform building the form. */
function formParameters(set: ParameterSet, fields: readonly Schema[]): string {
  const built: Array<{ property: string; parameter: string }> = [];
  for (const p of fields) {
    const name = typeof p.name === 'string' ? p.name : '';
    const added = set.addBody({
      name,
      location: 'body',
      type: restfnType(p),
      required: p.required === true,
      comment: describeSchema(p.description, p, []),
    });
    built.push({ property: name, parameter: added.name });
  }
  return objectBody(built);
}

/**
 * A body of another media type (an image, a PDF, XML, text): one `body` parameter holding the whole
 * body, a file unless the type is text. No transform: a body's only value is the body itself under
 * such a type.
 */
function wholeBody(
  set: ParameterSet,
  schemaValue: unknown,
  mediaType: string,
  required: boolean,
  description: unknown,
): undefined {
  const schema = asObject(schemaValue) ?? {};
  const text = /^text\/|[/+]xml\b/i.test(mediaType) && restfnType(schema) !== 'file';
  set.addBody({
    name: 'body',
    location: 'body',
    type: text ? 'string' : 'file',
    required,
    comment: describeSchema(description, schema, [`the whole request body (${mediaType})`]),
  });
  return undefined;
}

/**
 * A JSON body: each top-level property of an object schema becomes a body parameter (read-only ones
 * are the service's to set); any other schema (a list, a map without properties) is one `body`
 * parameter. Returns the inputTransform that builds the body back from them.
 */
function bodyParameters(
  set: ParameterSet,
  schemaValue: unknown,
  bodyRequired: boolean,
  description: unknown,
  /** A form's or multipart body's `encoding` (OpenAPI): a list field repeats its key unless it says deepObject. */
  form?: { readonly encoding: Schema },
): string {
  const schema = asObject(schemaValue);
  const shape = objectShape(schema);
  if (shape) {
    const fields: Array<{ property: string; parameter: string }> = [];
    for (const [property, s] of shape.properties) {
      if (s.readOnly === true) continue;
      const extra = s.default !== undefined ? [`the service's default: ${JSON.stringify(s.default)}`] : [];
      const type = restfnType(s);
      const repeated =
        form !== undefined && type === 'array' && asObject(form.encoding[property])?.style !== 'deepObject';
      const added = set.addBody({
        name: property,
        location: 'body',
        type,
        // The schema's `required` is honoured even when the body itself is not marked required
        // (OpenAPI's default): descriptions list required fields and often omit requestBody.required.
        required: shape.required.has(property),
        comment: describeSchema(s.description, s, extra),
        ...(repeated ? { style: 'form' as const } : {}),
      });
      fields.push({ property, parameter: added.name });
    }
    if (fields.length > 0) return objectBody(fields);
  }
  const added = set.addBody({
    name: 'body',
    location: 'body',
    type: restfnType(schema),
    required: bodyRequired,
    comment: describeSchema(description, schema, ['the whole request body']),
  });
  return parameterReference(added.name);
}

/** The response format from the success responses' media types: JSON when offered, else XML, text, PDF. */
function responseFormat(api: Schema, op: Schema, swagger: boolean): ImportedOperation['format'] {
  let types: string[];
  if (swagger) {
    types = (Array.isArray(op.produces) ? op.produces : Array.isArray(api.produces) ? api.produces : []).map(
      String,
    );
  } else {
    types = [];
    for (const [status, response] of Object.entries(asObject(op.responses) ?? {})) {
      if (!/^2/.test(status) && status !== 'default') continue;
      types.push(...Object.keys(asObject(asObject(response)?.content) ?? {}));
    }
  }
  if (types.length === 0 || types.some((t) => JSON_MEDIA.test(t) || t === '*/*')) return 'json';
  if (types.some((t) => /[/+]xml\b/i.test(t))) return 'xml';
  if (types.some((t) => /^application\/pdf/i.test(t))) return 'pdf';
  if (types.some((t) => /^text\//i.test(t))) return 'text';
  return 'json';
}

/**
 * The credentials of the operation's security requirement (its own, else the description's). Of
 * several alternatives the first is used; all schemes of it (they apply together).
 */
function security(input: OperationInput, notes: string[]): ImportedCredential[] {
  const { api, op, schemes, swagger } = input;
  const requirements = (
    Array.isArray(op.security) ? op.security : Array.isArray(api.security) ? api.security : []
  )
    .map(asObject)
    .filter((r): r is Schema => r !== undefined);
  if (requirements.length === 0) return [];
  // Of several alternatives, the one simplest to store: a key or a token, then basic, then OAuth
  // (Stripe offers basic and bearer for the same secret key); the first among equals.
  const rank = (r: Schema) => {
    const ranks = Object.keys(r).map((name) => {
      const scheme = asObject(schemes[name]);
      const spec = scheme ? schemeSpec(scheme, swagger, []) : 'undeclared';
      return typeof spec === 'string' ? 3 : spec.type === 'oauth' ? 2 : spec.type === 'basic' ? 1 : 0;
    });
    return ranks.length === 0 ? 4 : Math.max(...ranks);
  };
  const first = requirements.reduce((best, r) => (rank(r) < rank(best) ? r : best));
  if (requirements.length > 1) {
    const others = requirements.filter((r) => r !== first).map((r) => Object.keys(r).join(' + ') || 'none');
    notes.push(
      `security: of ${requirements.length} alternatives, ${Object.keys(first).join(' + ') || 'none'} is used (the simplest to store: a key or token, then basic, then OAuth); not the others (${others.join(', ')})`,
    );
  }
  const credentials: ImportedCredential[] = [];
  for (const [name, scopes] of Object.entries(first)) {
    const scheme = asObject(schemes[name]);
    if (!scheme) {
      notes.push(`security scheme '${name}' is not declared in the description: not imported`);
      continue;
    }
    const spec = schemeSpec(scheme, swagger, Array.isArray(scopes) ? scopes.map(String) : []);
    if (typeof spec === 'string') notes.push(`security scheme '${name}' is not imported: ${spec}`);
    else credentials.push(credentialFor(name, credentialKey(name), spec));
  }
  return credentials;
}

/** What restfn can do with a security scheme, or why it cannot. */
function schemeSpec(s: Schema, swagger: boolean, scopes: string[]): SchemeSpec | string {
  const type = String(s.type);
  if (type === 'apiKey') {
    if (s.in === 'header' || s.in === 'query') return { type: 'apiKey', name: String(s.name), in: s.in };
    return `an API key in a ${String(s.in)} (restfn sends credentials in headers, queries, paths and bodies)`;
  }
  if (type === 'basic') return { type: 'basic' };
  if (type === 'http') {
    const scheme = String(s.scheme).toLowerCase();
    if (scheme === 'basic') return { type: 'basic' };
    if (scheme === 'bearer') return { type: 'bearer' };
    return `HTTP authentication '${String(s.scheme)}' (restfn supports basic and bearer)`;
  }
  if (type === 'oauth2') {
    const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
    if (swagger) {
      const flow = String(s.flow);
      return {
        type: 'oauth',
        authorizeUrl: str(s.authorizationUrl),
        tokenUrl: str(s.tokenUrl),
        grant: flow === 'application' ? 'client_credentials' : 'authorization_code',
        scopes,
      };
    }
    const flows = asObject(s.flows) ?? {};
    const code = asObject(flows.authorizationCode);
    const client = asObject(flows.clientCredentials);
    const other = asObject(flows.implicit) ?? asObject(flows.password);
    const flow = code ?? client ?? other ?? {};
    return {
      type: 'oauth',
      authorizeUrl: str(flow.authorizationUrl),
      tokenUrl: str(flow.tokenUrl),
      grant: !code && client ? 'client_credentials' : 'authorization_code',
      scopes,
    };
  }
  if (type === 'openIdConnect') {
    const url = typeof s.openIdConnectUrl === 'string' ? s.openIdConnectUrl : undefined;
    const issuer = url?.replace(/\/\.well-known\/openid-configuration\/?$/, '');
    return { type: 'oauth', issuer, scopes };
  }
  return `a scheme of type '${type}' (restfn supports API keys, basic, bearer, OAuth 2 and OpenID Connect)`;
}
