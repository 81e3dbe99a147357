import type { QueryStyle } from '../definition/schema/parameter.js';
import { printable } from '../errors/printable.js';
import { RestfnError } from '../errors/restfn-error.js';
import {
  BodyEncodingError,
  type BodyKind,
  bodyKind,
  encodeForm,
  encodeMultipart,
  FileValue,
  formFields,
} from './body-encoding.js';
import { codePointName, headerValueProblem, isHeaderName } from './header-text.js';
import { mediaTypeOf } from './media-type.js';
import { reservedHeader } from './reserved-headers.js';
import type { SecretRefs } from './secret-refs.js';
import { MASK } from './sensitive.js';
import { baseValueProblem, builtUrlProblem, PLACEHOLDER, parseUrlTemplate } from './url-template.js';

/** A parameter after resolution: where it goes and its value (credentials already applied). */
export interface PlacedValue {
  readonly name: string;
  readonly location: 'header' | 'path' | 'query' | 'body' | 'output';
  readonly value: unknown;
  /** Set on values a credential filled: a request built to be shown carries `***` in their place. */
  readonly secret?: boolean;
  /** A query value's style (OpenAPI's; see `queryPairs`), when its definition gives one. */
  readonly style?: QueryStyle;
  readonly explode?: boolean;
}

export interface OutboundRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  /** JSON text, or raw bytes (an upload). */
  readonly body: string | Buffer | undefined;
  /**
   * The credential values this request carries, by the references that stand for them in the
   * fields above: the transport binds them into the bytes it sends, on origins they may go to.
   */
  readonly refs?: SecretRefs;
}

export class InvalidUrlError extends RestfnError {
  constructor(message: string, code: 'INVALID_URL' | 'INVALID_URL_VALUE' = 'INVALID_URL') {
    super(code, message);
  }
}

/** A caller's value that cannot go into the address (a `..` path segment): the caller's to fix. */
export class InvalidUrlValueError extends InvalidUrlError {
  constructor(message: string) {
    super(message, 'INVALID_URL_VALUE');
  }
}

/** A header name or value HTTP cannot carry (a line break, a control character); nothing was sent. */
export class InvalidHeaderError extends RestfnError {
  readonly header: string;

  constructor(header: string, message: string) {
    super('INVALID_HEADER', message);
    this.header = header;
  }
}

const NO_BODY = new Set(['GET', 'HEAD']);

/**
 * Spec 4.2 as a pure function: `{name}` placeholders take the path values (percent-encoded); a query
 * string written in the url is dropped and replaced by the query values (arrays repeat the key);
 * header values become headers; the body is the `inputTransform` result when given, else the body
 * values as one JSON object. GET and HEAD never carry a body.
 *
 * Bytes (a value converted to `buffer`) are sent raw when they are the whole body: the
 * `inputTransform` result, or the only body value. Their content type is the function's own
 * `content-type` header, else the type their signature shows. Bytes inside a JSON body are sent as
 * base64 text, the usual JSON encoding of bytes.
 */
export function buildRequest(
  method: string,
  url: string,
  values: readonly PlacedValue[],
  transformedBody?: { value: unknown },
  keepQuery = false,
): OutboundRequest {
  return build(method, url, values, transformedBody, keepQuery, false);
}

/**
 * The same request as it may be shown (traces, `@ctx.request`, error messages): every value a
 * credential filled is `***` as a whole, in the header, path segment, query value or body field it
 * fills, whatever its length or encoding. Masking the field rather than searching the text for the
 * value also hides values too short to search for. A transformed body is passed already masked.
 * The checks of `buildRequest` are not repeated: it ran first on the real values.
 */
export function shownRequest(
  method: string,
  url: string,
  values: readonly PlacedValue[],
  transformedBody?: { value: unknown },
  keepQuery = false,
  /** The multipart boundary the request as sent has, so that the shown body is the same text. */
  boundary?: string,
): OutboundRequest {
  return build(method, url, values, transformedBody, keepQuery, true, boundary);
}

/** The boundary of a multipart request's Content-Type, if it has one. */
export function boundaryOf(headers: Readonly<Record<string, string>>): string | undefined {
  return /;\s*boundary=([^;\s]+)/i.exec(headers['content-type'] ?? '')?.[1];
}

const NO_FIELDS: ReadonlySet<string> = new Set();

/** Body fields whose lists repeat the key (`style: form`), not the bracket form. */
function repeatedFields(values: readonly PlacedValue[]): ReadonlySet<string> {
  const names = new Set<string>();
  for (const v of values) if (v.style === 'form') names.add(v.name);
  return names;
}

function build(
  method: string,
  url: string,
  placed: readonly PlacedValue[],
  transformedBody: { value: unknown } | undefined,
  keepQuery: boolean,
  shown: boolean,
  boundary?: string,
): OutboundRequest {
  const values = shown ? masked(placed) : placed;
  const headers: Record<string, string> = {};
  for (const v of values) {
    if (v.location !== 'header' || v.value === undefined || v.value === null) continue;
    // Validation refuses these (HEADER_RESERVED); a version published before runs without them.
    if (reservedHeader(v.name) !== undefined) continue;
    const value = text(v.value);
    if (!shown) checkHeader(v, value);
    headers[v.name.toLowerCase()] = value;
  }
  let body: string | Buffer | undefined;
  if (!NO_BODY.has(method)) {
    const bodyValues = values.filter((v) => v.location === 'body' && v.value !== undefined);
    const kind = bodyKind(headers['content-type']);
    // A file as the only body value is the whole body, unless the type is a form of fields.
    const fields = kind === 'form' || kind === 'multipart';
    const whole = transformedBody
      ? transformedBody.value
      : bodyValues.length === 1 && isFile(bodyValues[0]!.value) && !fields
        ? bodyValues[0]!.value
        : bodyValues.length > 0
          ? Object.fromEntries(bodyValues.map((v) => [v.name, v.value]))
          : undefined;
    if (whole !== undefined)
      body = encodeBody(
        whole,
        kind,
        headers,
        shown,
        fields ? repeatedFields(bodyValues) : NO_FIELDS,
        boundary,
      );
  }
  return { method, url: buildUrl(url, values, keepQuery, shown), headers, body };
}

/** Each value a credential filled as `***`. */
function masked(placed: readonly PlacedValue[]): readonly PlacedValue[] {
  return placed.map((v) => (v.secret ? { ...v, value: MASK } : v));
}

/** Refuses what undici would refuse mid-request (and report as a network failure). */
function checkHeader(v: PlacedValue, value: string): void {
  if (!isHeaderName(v.name)) {
    throw new InvalidHeaderError(
      v.name,
      `parameter '${printable(v.name)}' cannot be sent as a header: a header name holds only letters, digits and !#$%&'*+-.^_\`|~ (no spaces, colons or line breaks); rename the parameter`,
    );
  }
  const problem = headerValueProblem(value);
  if (!problem) return;
  // A credential's characters are not named: even one of them is part of the secret.
  const which = v.secret ? '' : ` (${codePointName(problem.codePoint)} at character ${problem.index + 1})`;
  throw new InvalidHeaderError(
    v.name,
    `header '${printable(v.name)}' cannot be sent: its value holds a ${problem.kind}${which}, which a header cannot carry (line breaks and control characters are refused, and text beyond Latin-1 must be percent-encoded or sent in the query or body); check the value of parameter '${printable(v.name)}'`,
  );
}

/**
 * The body in the form the function's `Content-Type` names (sets the header when it names none):
 * JSON by default; a url-encoded form or multipart form data from an object of fields; a file (or
 * bytes) as the whole body, raw, when it is the whole body or the only field of a binary type's
 * body; text as it is for a text type. Shown, a multipart body is its text with each file as a
 * placeholder.
 */
function encodeBody(
  whole: unknown,
  kind: BodyKind,
  headers: Record<string, string>,
  shown: boolean,
  repeated: ReadonlySet<string>,
  boundary: string | undefined,
): string | Buffer {
  // Under a text or binary type, a body of one field is that field: the file, or the text.
  const single = kind === 'text' || kind === 'binary' ? onlyField(whole) : undefined;
  if (typeof single === 'string') return single;
  const file = isFile(whole) ? whole : isFile(single) ? single : undefined;
  if (file !== undefined) {
    const bytes = file instanceof FileValue ? file.bytes : Buffer.from(file);
    headers['content-type'] ??= (file instanceof FileValue && file.contentType) || mediaTypeOf(bytes).mime;
    return bytes;
  }
  switch (kind) {
    case 'form':
      return encodeForm(whole, repeated);
    case 'multipart': {
      const { body, contentType } = encodeMultipart(whole, shown, repeated, boundary);
      headers['content-type'] = contentType;
      return shown ? body.toString('utf8') : body;
    }
    case 'text':
    case 'binary':
      if (typeof whole === 'string') return whole;
      throw new BodyEncodingError(
        `a ${headers['content-type']} body is one value (a file, or text), and this function's body is ${Array.isArray(whole) ? 'a list' : typeof whole === 'object' && whole !== null ? `an object of ${Object.keys(whole).length} fields` : `a ${typeof whole}`}: send one body parameter, or change its Content-Type`,
      );
  }
  headers['content-type'] ??= 'application/json';
  return JSON.stringify(whole, bytesAsBase64);
}

function isFile(value: unknown): value is Uint8Array | FileValue {
  return value instanceof Uint8Array || value instanceof FileValue;
}

/** The value of a body's one field (`{file: <the photo>}` sent as image/jpeg). */
function onlyField(whole: unknown): unknown {
  if (whole === null || typeof whole !== 'object' || Array.isArray(whole) || isFile(whole)) return undefined;
  const fields = Object.values(whole);
  return fields.length === 1 ? fields[0] : undefined;
}

/** Bytes as base64 text. The holder's own value is checked: a Buffer's toJSON has run before `value`. */
function bytesAsBase64(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const own = this[key];
  return own instanceof Uint8Array ? Buffer.from(own).toString('base64') : value;
}

/**
 * With `keepQuery` (a continuation's next link, which carries its cursor in the query string) the
 * written query is kept and the query values are appended to it. Placeholders in the base of the
 * url (`https://{host}/...`) take their value as written, checked so that it cannot add a user
 * name, a query or another scheme; placeholders in the path are percent-encoded.
 */
export function buildUrl(
  template: string,
  given: readonly PlacedValue[],
  keepQuery = false,
  shown = false,
): string {
  const values = shown ? masked(given) : given;
  const path = new Map<string, unknown>();
  for (const v of values) if (v.location === 'path') path.set(v.name, v.value);
  const parsed = parseUrlTemplate(template);
  const { address, queryAt } = parsed;
  const end = queryAt === -1 ? address.length : queryAt;
  const written = keepQuery && queryAt !== -1 ? address.slice(queryAt + 1) : '';
  const base = address.slice(0, parsed.pathAt);
  const pathPart = address.slice(parsed.pathAt, end);
  // The url as built so far, credentials masked, for the message: the author sees what went wrong.
  const built = () => (shown ? '' : `: ${printable(buildUrl(template, values, keepQuery, true))}`);
  const value = (name: string) => {
    const v = path.get(name);
    if (v === undefined || v === null) {
      // Shown (in a message), a placeholder without a value stays as written.
      if (shown) return `{${name}}`;
      throw new InvalidUrlError(`url placeholder {${name}} has no value${built()}`);
    }
    const filled = text(v);
    // An empty segment would make another address (`/tickets//comments`, `https:///x`).
    if (filled === '' && !shown)
      throw new InvalidUrlValueError(
        `path parameter '${name}' is an empty string, which cannot fill {${name}}${built()}; give it a value`,
      );
    return filled;
  };
  const baseFilled = base.replace(PLACEHOLDER, (_, name: string, offset: number) => {
    const placeholder = parsed.placeholders.find((p) => p.index === offset)!;
    // A shown url masks a credential here too; the real build already checked its value.
    const problem = shown ? undefined : baseValueProblem(value(name), parsed, placeholder);
    if (problem)
      throw new InvalidUrlValueError(
        `parameter '${name}' cannot fill {${name}} in the address: ${problem}${built()}`,
      );
    return value(name);
  });
  const withPath =
    baseFilled +
    pathPart.replace(PLACEHOLDER, (_, name: string) =>
      shown
        ? path.get(name) == null
          ? `{${name}}`
          : encodeURIComponent(value(name))
        : encodePathValue(name, value(name), built),
    );
  let query: URLSearchParams | undefined;
  for (const v of values) {
    if (v.location !== 'query' || v.value === undefined || v.value === null) continue;
    query ??= new URLSearchParams(written);
    for (const [name, value] of queryPairs(v)) query.append(name, value);
  }
  // Without query values the written query (kept) is still passed through URLSearchParams, as before.
  const search = (query ?? (written ? new URLSearchParams(written) : undefined))?.toString() ?? '';
  const url = search ? `${withPath}?${search}` : withPath;
  const problem = shown ? undefined : builtUrlProblem(url, parsed);
  if (problem) throw new InvalidUrlError(`the address built from url ${problem}${built()}`);
  return url;
}

/**
 * The origin (scheme, host and port) of the addresses `template` builds, its base placeholders
 * filled from `values` as `buildUrl` fills them; undefined when that cannot be told (a base
 * placeholder without a usable value, or no absolute http(s) address).
 */
export function originOf(template: string, values: Readonly<Record<string, unknown>>): string | undefined {
  const parsed = parseUrlTemplate(template);
  let unknown = false;
  const base = parsed.address
    .slice(0, parsed.pathAt)
    .replace(PLACEHOLDER, (_, name: string, offset: number) => {
      const placeholder = parsed.placeholders.find((p) => p.index === offset)!;
      const given = Object.hasOwn(values, name) ? values[name] : undefined;
      const value = given === undefined || given === null ? undefined : text(given);
      if (value === undefined || baseValueProblem(value, parsed, placeholder) !== undefined) unknown = true;
      return value ?? '';
    });
  if (unknown) return undefined;
  const url = URL.parse(base.trim());
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:') ? url.origin : undefined;
}

/**
 * A path value, percent-encoded as one segment. `.` and `..` are refused: URL parsers treat them,
 * and their encoded forms `%2E`/`%2E%2E`, as dot segments that move the request to another path.
 */
function encodePathValue(name: string, value: string, built: () => string): string {
  if (/^(\.|%2e){1,2}$/i.test(value))
    throw new InvalidUrlValueError(
      `path parameter '${name}' is '${value}', which would move the request to another path${built()}`,
    );
  return encodeURIComponent(value);
}

/**
 * A query value as name/value pairs. Without a style (as before styles): a list repeats the key,
 * an object is JSON text. With one, as OpenAPI writes it: `form` repeats the key for a list and
 * gives an object's keys as their own parameters (`explode: false`: one comma-separated value,
 * `k1,v1,k2,v2` for an object); `deepObject` is the bracket form (`a[k]=v`, `a[]=x`, nested);
 * `pipeDelimited` and `spaceDelimited` join a list with `|` or a space.
 */
function queryPairs(v: PlacedValue): Array<[string, string]> {
  const { name, value } = v;
  const style = v.style ?? (v.explode === undefined ? undefined : 'form');
  const list = Array.isArray(value);
  const object = !list && typeof value === 'object' && value !== null;
  switch (style) {
    case undefined:
      return (list ? value : [value]).map((item) => [name, text(item)]);
    case 'deepObject':
      return list || object
        ? formFields(value, name).map(([k, leaf]) => [k, String(leaf)])
        : [[name, text(value)]];
    case 'pipeDelimited':
    case 'spaceDelimited':
      return [[name, list ? value.map(text).join(style === 'pipeDelimited' ? '|' : ' ') : text(value)]];
    case 'form': {
      const entries = object ? Object.entries(value as Record<string, unknown>) : undefined;
      if (v.explode === false) {
        const flat = entries
          ? entries.flatMap(([k, x]) => [k, text(x)])
          : list
            ? value.map(text)
            : [text(value)];
        return [[name, flat.join(',')]];
      }
      if (entries) return entries.map(([k, x]) => [k, text(x)]);
      return (list ? value : [value]).map((item) => [name, text(item)]);
    }
  }
}

/** How a value is written into a header, path segment or query value. */
function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(text).join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
