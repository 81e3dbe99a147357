// A Postman collection (v2.0 and v2.1, a documented JSON format: schema.getpostman.com) read as
// plain JSON into the few objects the import walks (issue 38: restfn used Postman's SDK for this,
// which installed a 17 MB fake-data library for everyone). Postman's own readings are kept: a url
// given as text is split as Postman splits it (a `{{variable}}` is never cut at a `.`, `:` or `/`
// inside it), a query pair without `=` has no value, folders are items holding `item`, and a
// folder's or the collection's `auth` applies to the requests under it.

export interface PmList<T> {
  all(): T[];
}
export interface PmVariable {
  key: string;
  value: unknown;
  disabled?: boolean;
  description?: unknown;
}
export interface PmPair {
  key: string | null;
  value: string | null;
  disabled?: boolean;
  description?: unknown;
}
export interface PmUrl {
  protocol?: string;
  host?: string[];
  port?: string;
  path?: string[];
  query: PmList<PmPair>;
  variables: PmList<PmVariable>;
}
export interface PmFormField {
  key?: string;
  value?: string;
  type?: string;
  disabled?: boolean;
}
export interface PmAuth {
  type: string;
  /** The scheme's fields by name (v2.1 lists `{key, value}`, v2.0 writes an object). */
  fields: Record<string, unknown>;
}
export interface PmRequest {
  method: string;
  url: PmUrl;
  headers: PmList<PmPair>;
  body?: {
    mode?: string;
    raw?: string;
    options?: { raw?: { language?: string } };
    urlencoded?: PmFormField[];
    formdata?: PmFormField[];
    file?: unknown;
  };
  auth?: PmAuth;
  description?: unknown;
}
export interface PmNode {
  name: string;
  auth?: PmAuth;
  parent(): PmNode | undefined;
}
export interface PmItem extends PmNode {
  request: PmRequest;
}
export interface PmCollection extends PmNode {
  /** The collection's variables by key (disabled ones too, as Postman's SDK gave them). */
  variables: Record<string, unknown>;
  forEachItem(callback: (item: PmItem) => void): void;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const list = <T>(items: T[]): PmList<T> => ({ all: () => items });
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The collection, or an Error saying what in the JSON is not a collection. */
export function readCollection(data: unknown): PmCollection {
  if (!isObject(data)) throw new Error('the file is not a JSON object');
  if (!Array.isArray(data.item)) throw new Error("it has no 'item' list");
  const info = isObject(data.info) ? data.info : {};
  const variables: Record<string, unknown> = {};
  for (const v of Array.isArray(data.variable) ? data.variable : []) {
    const key = isObject(v) ? (text(v.key) ?? text(v.id)) : undefined;
    if (key !== undefined) variables[key] = (v as Json).value;
  }
  const collection: PmCollection = {
    name: text(info.name) ?? '',
    auth: readAuth(data.auth),
    parent: () => undefined,
    variables,
    forEachItem(callback) {
      const visit = (items: unknown[], parent: PmNode) => {
        for (const entry of items) {
          if (!isObject(entry)) continue;
          if (Array.isArray(entry.item)) {
            const folder: PmNode = {
              name: text(entry.name) ?? '',
              auth: readAuth(entry.auth),
              parent: () => parent,
            };
            visit(entry.item, folder);
          } else {
            callback({
              name: text(entry.name) ?? '',
              parent: () => parent,
              request: readRequest(entry.request),
            });
          }
        }
      };
      visit(data.item as unknown[], collection);
    },
  };
  return collection;
}

function readRequest(given: unknown): PmRequest {
  const request: Json = typeof given === 'string' ? { url: given } : isObject(given) ? given : {};
  const body = isObject(request.body) ? request.body : undefined;
  return {
    method: (text(request.method) ?? 'GET').toUpperCase(),
    url: readUrl(request.url),
    headers: list(readHeaders(request.header)),
    body: body && {
      mode: text(body.mode),
      raw: text(body.raw),
      options: isObject(body.options) ? (body.options as { raw?: { language?: string } }) : undefined,
      urlencoded: fields(body.urlencoded),
      formdata: fields(body.formdata),
      file: body.file,
    },
    auth: readAuth(request.auth),
    description: request.description,
  };
}

function fields(value: unknown): PmFormField[] | undefined {
  return Array.isArray(value) ? (value.filter(isObject) as PmFormField[]) : undefined;
}

/** Headers as a list of pairs, or as text (`Name: value` lines), as Postman accepts both. */
function readHeaders(value: unknown): PmPair[] {
  if (typeof value === 'string') {
    return value
      .split(/\r?\n/)
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const at = line.indexOf(':');
        return at === -1
          ? { key: line.trim(), value: '' }
          : { key: line.slice(0, at).trim(), value: line.slice(at + 1).trim() };
      });
  }
  return Array.isArray(value) ? value.filter(isObject).map(pair) : [];
}

function pair(entry: Json): PmPair {
  return {
    key: text(entry.key) ?? null,
    value: entry.value === undefined || entry.value === null ? null : String(entry.value),
    disabled: entry.disabled === true,
    description: entry.description,
  };
}

/** An auth with its fields by name; `noauth` and `inherit` are types the import reads itself. */
function readAuth(value: unknown): PmAuth | undefined {
  if (!isObject(value) || typeof value.type !== 'string') return undefined;
  const given = value[value.type];
  const fields: Record<string, unknown> = {};
  if (Array.isArray(given)) {
    for (const f of given) if (isObject(f) && typeof f.key === 'string') fields[f.key] = f.value;
  } else if (isObject(given)) Object.assign(fields, given);
  return { type: value.type, fields };
}

/** A url object as Postman exports it (its parts; its `raw` text when it has none), or a text. */
function readUrl(value: unknown): PmUrl {
  const parts: Json =
    typeof value === 'string'
      ? splitUrl(value)
      : isObject(value)
        ? value.host === undefined && value.path === undefined && typeof value.raw === 'string'
          ? { ...splitUrl(value.raw), variable: value.variable }
          : value
        : {};
  // As Postman: a leading `/` dropped, `/` alone one empty segment, '' no path.
  const pathText = typeof parts.path === 'string' ? parts.path.replace(/^\/(.+)$/, '$1') : undefined;
  const path =
    pathText !== undefined
      ? pathText === ''
        ? undefined
        : pathText === '/'
          ? ['']
          : pathText.split('/')
      : Array.isArray(parts.path)
        ? parts.path.map(String)
        : undefined;
  const host =
    typeof parts.host === 'string'
      ? parts.host.split('.')
      : Array.isArray(parts.host)
        ? parts.host.map(String)
        : undefined;
  const query = Array.isArray(parts.query)
    ? parts.query.map((q) => (typeof q === 'string' ? queryPair(q) : isObject(q) ? pair(q) : undefined))
    : [];
  const variables = (Array.isArray(parts.variable) ? parts.variable : [])
    .filter(isObject)
    .map((v) => ({ ...v, key: text(v.key) ?? text(v.id) ?? '' }) as PmVariable);
  return {
    protocol: text(parts.protocol),
    host,
    port: parts.port === undefined || parts.port === null ? undefined : String(parts.port),
    path,
    query: list(query.filter((q): q is PmPair => q !== undefined)),
    variables: list(variables),
  };
}

function queryPair(text: string): PmPair {
  const at = text.indexOf('=');
  return at === -1 ? { key: text, value: null } : { key: text.slice(0, at), value: text.slice(at + 1) };
}

/**
 * A url text in Postman's parts: `#hash`, `?query` (split at `&`), `protocol://`, `/path`
 * (split at `/`), `user@`, `:port`, and the host split at `.`. A `{{variable}}` is one piece.
 */
function splitUrl(raw: string): Json {
  const variables: string[] = [];
  // A variable becomes a marker with none of the separators in it, and is put back in each part.
  let rest = raw.trimStart().replace(/\{\{[^{}]*\}\}/g, (v) => `\uE000${variables.push(v) - 1}\uE000`);
  const back = (part: string) => part.replace(/\uE000(\d+)\uE000/g, (_, i: string) => variables[Number(i)]!);
  const parts: Json = {};
  let at = rest.indexOf('#');
  if (at !== -1) rest = rest.slice(0, at);
  at = rest.indexOf('?');
  if (at !== -1) {
    parts.query = rest
      .slice(at + 1)
      .split('&')
      .map(back);
    rest = rest.slice(0, at);
  }
  rest = rest.replace(/\\/g, '/');
  at = rest.indexOf('://');
  if (at !== -1) {
    parts.protocol = back(rest.slice(0, at));
    rest = rest.slice(at + 3).replace(/^\/+/, '');
  }
  at = rest.indexOf('/');
  if (at !== -1) {
    parts.path = rest
      .slice(at + 1)
      .split('/')
      .map(back);
    rest = rest.slice(0, at);
  }
  at = rest.lastIndexOf('@');
  if (at !== -1) rest = rest.slice(at + 1);
  at = rest.lastIndexOf(':');
  if (at !== -1 && !rest.slice(at + 1).includes(']')) {
    parts.port = back(rest.slice(at + 1));
    rest = rest.slice(0, at);
  }
  if (rest !== '') parts.host = rest.split('.').map(back);
  // Postman names the url's `:name` path segments as its variables.
  const names = [...new Set(((parts.path as string[] | undefined) ?? []).filter((s) => /^:./.test(s)))];
  if (names.length > 0) parts.variable = names.map((s) => ({ key: s.slice(1) }));
  return parts;
}
