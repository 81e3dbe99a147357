import { looksLikeSecret } from '../definition/credential-params.js';
import { suggestFileName } from '../definition/naming.js';
import { objectBody, parameterReference } from './body.js';
import { ImportError } from './errors.js';
import { firstLine } from './json-schema.js';
import { literal } from './literal.js';
import type {
  ImportedCredential,
  ImportedDescription,
  ImportedOperation,
  ImportedParameter,
} from './model.js';
import { ParameterSet } from './parameter-set.js';
import {
  type PmAuth,
  type PmCollection,
  type PmFormField,
  type PmItem,
  type PmNode,
  readCollection,
} from './postman-collection.js';
import { credentialFor, type SchemeSpec } from './security.js';
import type { SourceDocument } from './source.js';
import { type ImportVariables, MISSING_ADDRESS } from './variables.js';

const CALLABLE = new Set(['DELETE', 'GET', 'HEAD', 'PUT', 'PATCH', 'POST']);
const VARIABLE = /\{\{([^{}]+)\}\}/g;

/**
 * Names under which a value is a credential: a header, query or body field called so gets a
 * `secret` credential parameter, and a collection variable called so is never copied into a file.
 */
export function looksLikeCredentialName(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const credentialWords = [
    'token',
    'secret',
    'password',
    'passwd',
    'apikey',
    'auth',
    'authorization',
    'credential',
    'credentials',
  ];
  if (words.some((w) => credentialWords.includes(w))) return true;
  return words.includes('key') && (words.length === 1 || words.includes('api'));
}

/** Collection variables and `--var` values, `--var` first. Values that look like credentials are withheld. */
class PostmanVariables {
  readonly withheld = new Set<string>();
  constructor(
    readonly vars: ImportVariables,
    private readonly collection: Record<string, unknown>,
  ) {}

  lookup(name: string): string | undefined {
    const given = this.vars.get(name);
    if (given !== undefined && this.vars.isSecret(name)) {
      this.withheld.add(name);
      return undefined;
    }
    if (given !== undefined) return given;
    // Dynamic variables ({{$guid}}, {{$timestamp}}) have a new value on each send: there is none to copy.
    if (name.startsWith('$')) return undefined;
    const value = this.collection[name];
    if (value === undefined || value === null || value === '') return undefined;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (looksLikeCredentialName(name) || looksLikeSecret(text)) {
      this.withheld.add(name);
      return undefined;
    }
    return text;
  }

  /** The text with every known `{{name}}` replaced, and the names without a value. */
  substitute(text: string): { text: string; missing: string[] } {
    const missing: string[] = [];
    const replaced = text.replace(VARIABLE, (whole, name: string) => {
      const value = this.lookup(name.trim());
      if (value === undefined) {
        missing.push(name.trim());
        return whole;
      }
      return value;
    });
    return { text: replaced, missing };
  }
}

/** Postman Collection v2.0 or v2.1 (postman-collection.ts): every request becomes one function. */
export function readPostman(source: SourceDocument, vars: ImportVariables): ImportedDescription {
  let collection: PmCollection;
  try {
    collection = readCollection(source.data);
  } catch (error) {
    throw new ImportError(
      'IMPORT_FORMAT',
      `${source.shown} cannot be read as a Postman collection (${firstLine((error as Error).message) ?? 'no detail'}); export it again from Postman as Collection v2.1`,
      { cause: error },
    );
  }
  const variables = new PostmanVariables(vars, collection.variables);
  const operations: ImportedOperation[] = [];
  const skipped: Array<{ route: string; reason: string }> = [];
  collection.forEachItem((item) => {
    const folders = foldersOf(item, collection);
    const id = [...folders, item.name].join(' / ');
    const method = String(item.request.method ?? 'GET').toUpperCase();
    if (!CALLABLE.has(method)) {
      skipped.push({ route: `${id} (${method})`, reason: `restfn calls only ${[...CALLABLE].join(', ')}` });
      return;
    }
    operations.push(request(item, id, method as ImportedOperation['method'], folders, collection, variables));
  });
  return {
    format: 'postman',
    formatName: source.formatName,
    title: collection.name ?? '',
    operations,
    skipped,
  };
}

function foldersOf(item: PmItem, collection: PmCollection): string[] {
  const names: string[] = [];
  for (let node = item.parent(); node && node !== collection; node = node.parent()) names.unshift(node.name);
  return names;
}

function request(
  item: PmItem,
  id: string,
  method: ImportedOperation['method'],
  folders: string[],
  collection: PmCollection,
  variables: PostmanVariables,
): ImportedOperation {
  const notes: string[] = [];
  const req = item.request;
  const collectionSlug = suggestFileName(collection.name ?? '') || 'postman';
  const credentials = authCredentials(item, collection, notes);
  const extraCredential = (name: string, location: 'header' | 'query' | 'body', where: string) => {
    if (credentials.some((c) => c.parameter.name.toLowerCase() === name.toLowerCase())) {
      notes.push(`${where} '${name}' is not imported: the request's authentication sends it`);
      return;
    }
    const key = `${collectionSlug}-${suggestFileName(name) || 'secret'}`;
    credentials.push({
      scheme: `${where} ${name}`,
      key,
      kind: 'secret',
      parameter: { name, location, type: 'secret' },
      setArguments: ['--kind', 'secret'],
    });
    notes.push(
      `${where} '${name}' looks like a credential: it is a secret credential parameter (key ${key}); its value is not copied`,
    );
  };

  // An Authorization header written by hand: a credential parameter of the kind its scheme says,
  // keyed by the variable it holds (or one key per collection), its value never copied.
  const authorizationHeader = (value: string) => {
    if (credentials.some((c) => c.parameter.name.toLowerCase() === 'authorization')) {
      notes.push("header 'Authorization' is not imported: the request's authentication sends it");
      return;
    }
    const scheme = /^\s*(Bearer|Basic)\s/i.exec(value)?.[1]?.toLowerCase() as 'bearer' | 'basic' | undefined;
    const variable = /\{\{([^{}]+)\}\}/.exec(value)?.[1];
    const key = `${collectionSlug}-${suggestFileName(variable ?? '') || scheme || 'authorization'}`;
    const credential = credentialFor(
      "header 'Authorization'",
      key,
      scheme === 'basic'
        ? { type: 'basic' }
        : scheme === 'bearer'
          ? { type: 'bearer' }
          : { type: 'apiKey', name: 'Authorization', in: 'header' },
    );
    credentials.push(
      scheme === 'basic'
        ? { ...credential, parameter: { name: 'Authorization', location: 'header', type: 'secret' } }
        : credential,
    );
    notes.push(
      `header 'Authorization' is a ${credential.kind} credential parameter (key ${key}); its value is not copied`,
    );
  };

  // The address: scheme, host and port must resolve (--var or the collection's variables).
  const url = req.url;
  const hostText = (url.host ?? []).join('.');
  const baseTemplate = `${url.protocol ? `${url.protocol}://` : ''}${hostText}${url.port ? `:${url.port}` : ''}`;
  const base = { ...variables.substitute(baseTemplate) };
  for (const name of base.missing) {
    const why = variables.withheld.has(name)
      ? '; its value in the collection looks like a credential, so it is not used'
      : '';
    variables.vars.miss(
      name,
      name === 'baseUrl' ? 'https://api.example.com' : 'VALUE',
      `the address of request '${id}'${why}`,
    );
  }
  if (base.missing.length > 0) base.text = MISSING_ADDRESS;
  let address = base.text.replace(/\/+$/, '');
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(address)) {
    address = `http://${address}`;
    notes.push('the address has no scheme: http:// is assumed, as Postman does');
  }

  // Path: `:name` segments and unresolved {{name}} become path parameters.
  const pathParameters: ImportedParameter[] = [];
  const pathDefaults = new Map(url.variables.all().map((v) => [v.key, v]));
  const segments: string[] = [];
  for (const segment of url.path ?? []) {
    if (segment.startsWith(':') && segment.length > 1) {
      const name = segment.slice(1);
      const declared = pathDefaults.get(name);
      const value =
        typeof declared?.value === 'string' && declared.value !== ''
          ? variables.substitute(declared.value)
          : undefined;
      pathParameters.push({
        name,
        location: 'path',
        type: 'string',
        required: true,
        value: value && value.missing.length === 0 ? value.text : undefined,
        comment: firstLine(descriptionText(declared && (declared as { description?: unknown }).description)),
      });
      segments.push(`{${name}}`);
      continue;
    }
    let text = '';
    let last = 0;
    for (const match of segment.matchAll(VARIABLE)) {
      text += braces(segment.slice(last, match.index));
      const name = match[1]!.trim();
      const value = variables.lookup(name);
      if (value !== undefined) text += braces(value);
      else {
        const placeholder = suggestPlaceholder(name);
        text += `{${placeholder}}`;
        if (!pathParameters.some((p) => p.name === placeholder))
          pathParameters.push({
            name: placeholder,
            location: 'path',
            type: 'string',
            required: true,
            comment: `{{${name}}} in Postman`,
          });
      }
      last = match.index + match[0].length;
    }
    segments.push(text + braces(segment.slice(last)));
  }
  const path = segments.length > 0 ? `/${segments.join('/')}` : '';

  // Query and headers: values are defaults; a value with a variable that has none makes the parameter required.
  const queryParameters: ImportedParameter[] = [];
  for (const q of url.query.all()) {
    if (q.disabled || !q.key) continue;
    if (looksLikeCredentialName(q.key)) {
      extraCredential(q.key, 'query', 'query parameter');
      continue;
    }
    const existing = queryParameters.findIndex((p) => p.name === q.key);
    const value = pairValue(q.value, variables);
    if (existing !== -1) {
      const before = queryParameters[existing]!;
      const values = [...(Array.isArray(before.value) ? before.value : [before.value]), value.value];
      queryParameters[existing] = {
        ...before,
        type: 'array',
        value: values.includes(undefined) ? undefined : values,
        required: before.required || value.required,
      };
      continue;
    }
    queryParameters.push({
      name: q.key,
      location: 'query',
      type: 'string',
      ...value,
      comment: firstLine(descriptionText(q.description)),
    });
  }
  const body = req.body;
  const contentType =
    req.headers.all().find((h) => !h.disabled && h.key?.toLowerCase() === 'content-type')?.value ?? '';
  const rawJson =
    body?.mode === 'raw' &&
    (body.options?.raw?.language === 'json' ||
      /json/i.test(contentType) ||
      (!body.options?.raw?.language && /^\s*[{[]/.test(body.raw ?? '')));
  const headerParameters: ImportedParameter[] = [];
  let format: ImportedOperation['format'] = 'json';
  for (const h of req.headers.all()) {
    if (h.disabled || !h.key) continue;
    const lower = h.key.toLowerCase();
    if (lower === 'authorization') {
      authorizationHeader(h.value ?? '');
      continue;
    }
    if (looksLikeCredentialName(h.key) || lower === 'cookie') {
      extraCredential(h.key, 'header', 'header');
      continue;
    }
    if (
      lower === 'content-type' &&
      (!rawJson || /^application\/json\s*(;\s*charset=utf-8)?\s*$/i.test(h.value ?? ''))
    )
      continue;
    if (lower === 'accept') {
      const accept = h.value ?? '';
      if (!/json/i.test(accept) && /xml/i.test(accept)) format = 'xml';
      else if (!/json/i.test(accept) && /^text\//i.test(accept)) format = 'text';
    }
    headerParameters.push({
      name: h.key,
      location: 'header',
      type: 'string',
      ...pairValue(h.value, variables),
      comment: firstLine(descriptionText(h.description)),
    });
  }

  // The body: raw JSON only. Its top-level properties become body parameters, their values defaults.
  const bodyFields: Array<{ property: string; parameter: ImportedParameter }> = [];
  let wholeBody: ImportedParameter | undefined;
  let bodyType: string | undefined;
  if (body?.mode === 'urlencoded' || body?.mode === 'formdata') {
    // A form, or multipart form data: a body parameter per field (a file field a file); its
    // sample text is copied unless it looks like a secret.
    bodyType = body.mode === 'formdata' ? 'multipart/form-data' : 'application/x-www-form-urlencoded';
    const fields: PmFormField[] = (body.mode === 'formdata' ? body.formdata : body.urlencoded) ?? [];
    for (const f of fields) {
      if (f.disabled || !f.key) continue;
      const file = f.type === 'file';
      const secretLike =
        looksLikeCredentialName(f.key) || (typeof f.value === 'string' && looksLikeSecret(f.value));
      bodyFields.push({
        property: f.key,
        parameter:
          file || secretLike
            ? {
                name: f.key,
                location: 'body',
                type: file ? 'file' : 'string',
                required: false,
                ...(secretLike
                  ? { comment: 'the value in Postman looks like a secret: it is not copied' }
                  : {}),
              }
            : { name: f.key, location: 'body', type: 'string', ...pairValue(f.value ?? null, variables) },
      });
    }
  } else if (body?.mode === 'file') {
    bodyType = contentType || 'application/octet-stream';
    wholeBody = {
      name: 'body',
      location: 'body',
      type: 'file',
      required: true,
      comment: 'the whole request body: a file',
    };
  } else if (body?.mode === 'raw' && !rawJson && (body.raw ?? '') !== '') {
    // Text (XML, plain text): the whole body, its sample not copied (it may hold anything).
    bodyType = contentType || (body.options?.raw?.language === 'xml' ? 'application/xml' : 'text/plain');
    wholeBody = {
      name: 'body',
      location: 'body',
      type: 'string',
      required: true,
      comment: `the whole request body (${bodyType})`,
    };
  } else if (body?.mode && body.mode !== 'none') {
    const parsed = rawJson ? parseRawJson(body.raw ?? '') : undefined;
    if (parsed === undefined) {
      const what =
        body.mode === 'raw'
          ? `a raw ${body.options?.raw?.language ?? 'text'} body${rawJson ? ' that is not valid JSON' : ''}`
          : `a ${body.mode} body`;
      notes.push(
        `the request body is not imported: it is ${what}, which restfn import does not map (it maps JSON, form, multipart, file and text bodies)`,
      );
    } else if (
      typeof parsed.value === 'object' &&
      parsed.value !== null &&
      !Array.isArray(parsed.value) &&
      Object.keys(parsed.value).length > 0
    ) {
      // A property named like a secret (`password`) is the caller's value, not a credential: only an
      // authentication says what a credential is. Its sample value is not copied (sampleValue).
      for (const [property, sample] of Object.entries(parsed.value as Record<string, unknown>)) {
        const secretLike =
          looksLikeCredentialName(property) || (typeof sample === 'string' && looksLikeSecret(sample));
        const shaped = sampleValue(sample, variables);
        bodyFields.push({
          property,
          parameter: secretLike
            ? {
                name: property,
                location: 'body',
                type: shaped.type,
                required: false,
                comment: 'the value in Postman looks like a secret: it is not copied (the caller gives it)',
              }
            : { name: property, location: 'body', ...shaped },
        });
      }
    } else if (parsed.value !== undefined) {
      wholeBody = {
        name: 'body',
        location: 'body',
        ...sampleValue(parsed.value, variables),
        comment: 'the whole request body',
      };
    }
  }

  const set = new ParameterSet(credentials);
  for (const p of [...pathParameters, ...queryParameters, ...headerParameters]) set.add(p);
  if (bodyType !== undefined && !set.taken('Content-Type', 'header'))
    set.add({ name: 'Content-Type', location: 'header', type: 'string', required: true, value: bodyType });
  let inputTransform: string | undefined;
  const bodyCredentials = credentials.filter((c) => c.parameter.location === 'body');
  if (bodyFields.length > 0 || bodyCredentials.length > 0) {
    const fields = bodyFields.map((f) => ({
      property: f.property,
      parameter: set.addBody(f.parameter).name,
    }));
    for (const c of bodyCredentials) fields.push({ property: c.parameter.name, parameter: c.parameter.name });
    inputTransform = objectBody(fields);
  } else if (wholeBody) {
    const added = set.addBody(wholeBody);
    // Under a file or text type the body's only value is the body: no transform.
    if (bodyType === undefined) inputTransform = parameterReference(added.name);
  }
  for (const name of variables.withheld)
    notes.push(`variable {{${name}}} is not copied: its name or value looks like a credential`);
  variables.withheld.clear();
  notes.push(...set.notes);
  const route = `${method} ${(url.path ?? []).length > 0 ? `/${(url.path ?? []).join('/')}` : '/'}`;
  return {
    id,
    route,
    method,
    nameFrom: item.name,
    nameFallback: route,
    tags: folders,
    summary: firstLine(descriptionText(req.description)),
    url: `${address}${path}`,
    format,
    parameters: set.parameters,
    inputTransform,
    credentials,
    notes,
  };
}

/** Postman's descriptions are text or `{ content }`. */
function descriptionText(description: unknown): string | undefined {
  if (typeof description === 'string') return description;
  const content = (description as { content?: unknown } | undefined)?.content;
  return typeof content === 'string' ? content : undefined;
}

/** Literal `{` and `}` in a path are percent-encoded: in a restfn url they would start a placeholder. */
function braces(text: string): string {
  return text.replaceAll('{', '%7B').replaceAll('}', '%7D');
}

function suggestPlaceholder(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]+/g, '_');
}

/** A header or query value: a default when every variable in it has a value, else a required parameter. */
function pairValue(
  value: string | null,
  variables: PostmanVariables,
): { required: boolean; value?: unknown } {
  if (value === null || value === '') return { required: false };
  const { text, missing } = variables.substitute(value);
  return missing.length > 0 ? { required: true } : { required: false, value: literal(text) };
}

/** A body property's type and default from the request's sample value (variables in texts filled). */
function sampleValue(
  sample: unknown,
  variables: PostmanVariables,
): Omit<ImportedParameter, 'name' | 'location'> {
  const type =
    sample === null
      ? undefined
      : Array.isArray(sample)
        ? 'array'
        : typeof sample === 'object'
          ? 'object'
          : typeof sample === 'number'
            ? 'number'
            : typeof sample === 'boolean'
              ? 'boolean'
              : 'string';
  const missing: string[] = [];
  const filled = JSON.parse(JSON.stringify(sample), (_key, v: unknown) => {
    if (typeof v !== 'string') return v;
    const s = variables.substitute(v);
    missing.push(...s.missing);
    return s.text;
  }) as unknown;
  if (missing.length > 0) {
    return { type, required: true, comment: `{{${missing.join('}}, {{')}}} in Postman: no value to copy` };
  }
  return { type, required: false, value: sample === null ? undefined : literal(filled) };
}

/** The raw body as JSON; a variable written bare (`"n": {{n}}`) is read as a text. */
function parseRawJson(raw: string): { value: unknown } | undefined {
  for (const text of [raw, raw.replace(/(?<!")\{\{([^{}]+)\}\}(?!")/g, '"{{$1}}"')]) {
    try {
      return { value: JSON.parse(text) };
    } catch {
      // next form
    }
  }
  return undefined;
}

/**
 * The request's authentication: its own, else the nearest folder's, else the collection's (Postman's
 * inheritance). The credential key is named after where it is set and its kind (`pet-shop-api-key`).
 */
function authCredentials(item: PmItem, collection: PmCollection, notes: string[]): ImportedCredential[] {
  let owner: PmNode | undefined;
  let auth: PmAuth | undefined;
  if (item.request.auth && item.request.auth.type !== 'inherit') {
    owner = item;
    auth = item.request.auth;
  } else {
    for (let node = item.parent(); node; node = node.parent()) {
      if (node.auth && node.auth.type !== 'inherit') {
        owner = node;
        auth = node.auth;
        break;
      }
      if (node === collection) break;
    }
  }
  if (!auth || !owner || auth.type === 'noauth') return [];
  const where =
    owner === collection
      ? `collection '${owner.name}'`
      : owner === item
        ? `request '${owner.name}'`
        : `folder '${owner.name}'`;
  const p = auth.fields;
  // A request's own auth is keyed by the variable holding its secret (`{{orderToken}}` ->
  // `shop-order-token`), so requests that share a token share a key; a folder's or the collection's
  // by its owner.
  const secretVariable = [p.token, p.password, p.value, p.accessToken]
    .map((v) => (typeof v === 'string' ? /^\{\{([^{}]+)\}\}$/.exec(v.trim())?.[1] : undefined))
    .find((v) => v !== undefined);
  const collectionSlug = suggestFileName(collection.name ?? '') || 'postman';
  const slug =
    owner === item && secretVariable !== undefined
      ? `${collectionSlug}-${suggestFileName(secretVariable) || 'secret'}`
      : suggestFileName(owner.name ?? '') || 'postman';
  const text = (v: unknown) => (typeof v === 'string' && v !== '' && !v.includes('{{') ? v : undefined);
  let spec: SchemeSpec;
  let suffix: string;
  switch (auth.type) {
    case 'apikey':
      spec = { type: 'apiKey', name: text(p.key) ?? 'x-api-key', in: p.in === 'query' ? 'query' : 'header' };
      suffix = 'api-key';
      break;
    case 'basic':
      spec = { type: 'basic' };
      suffix = 'basic';
      break;
    case 'bearer':
      spec = { type: 'bearer' };
      suffix = 'bearer';
      break;
    case 'oauth2': {
      const grant = String(p.grant_type ?? '');
      spec = {
        type: 'oauth',
        authorizeUrl: text(p.authUrl),
        tokenUrl: text(p.accessTokenUrl),
        clientId: text(p.clientId),
        grant: grant === 'client_credentials' ? 'client_credentials' : 'authorization_code',
        scopes: (text(p.scope) ?? '').split(/\s+/).filter(Boolean),
      };
      suffix = 'oauth';
      break;
    }
    default:
      notes.push(
        `the authentication of ${where} (${auth.type}) is not imported: restfn supports API key, basic, bearer and OAuth 2`,
      );
      return [];
  }
  return [
    credentialFor(where, owner === item && secretVariable !== undefined ? slug : `${slug}-${suffix}`, spec),
  ];
}
