import { randomHex } from '../portable/random.js';
import type { OutboundRequest } from './build-request.js';
import { CredentialOriginError } from './errors.js';

/** One credential value of a request, by its reference. */
interface Bound {
  readonly value: string;
  /** The credential key, for messages. */
  readonly key: string;
  /** Where it may be sent (`https://api.example.com`); undefined: anywhere (a device credential without origins). */
  readonly origins: readonly string[] | undefined;
}

/** `rfn-secret-` + 28 hex digits (24 random, 4 counting): safe as it is in a header, a URL and JSON. */
const PREFIX = 'rfn-secret-';

/**
 * The credential values of one attempt, bound late: parameters, transforms, scripts and every
 * text that may be shown hold an opaque reference in place of each value, and only the bytes sent
 * get the value, in `bind`, after every expression ran. A transform that reshapes a reference
 * (`$split`, `$reverse`, `$base64encode`) sends the reshaped reference, never the secret; masking
 * after the fact could not promise that (an echoing service, or slices of two characters, defeat
 * it). The references are random per attempt, so no author can write one in advance.
 */
export class SecretRefs {
  private readonly nonce = randomHex(12);
  private readonly bound = new Map<string, Bound>();

  /** A reference standing for `value` until the bytes are sent. */
  refer(value: string, key: string, origins: readonly string[] | undefined): string {
    const ref = `${PREFIX}${this.nonce}${this.bound.size.toString(16).padStart(4, '0')}`;
    this.bound.set(ref, { value, key, origins });
    return ref;
  }

  get size(): number {
    return this.bound.size;
  }

  /**
   * Throws CREDENTIAL_ORIGIN, before anything is sent, when the request carries a credential that
   * may not go to `url`'s origin (scheme, host and port). Every credential the function named
   * counts, whether or not a transform kept its reference: the request is the function's, and its
   * address must be one the credentials were given for.
   */
  checkOrigin(url: string): void {
    const origin = URL.parse(url)?.origin;
    for (const { key, origins } of this.bound.values()) {
      if (origins === undefined || (origin !== undefined && origins.includes(origin))) continue;
      throw new CredentialOriginError(key, origin ?? url, origins);
    }
  }

  /**
   * The request as it is sent: each reference replaced by its value, encoded for where it stands:
   * percent-encoded in the path, form-encoded in the query and a form body, JSON-escaped in a JSON
   * body, as it is in a header, a text body or a multipart field. Other bytes (an upload) carry no
   * references.
   */
  bind(req: OutboundRequest): OutboundRequest {
    if (this.bound.size === 0) return req;
    const q = req.url.indexOf('?');
    const path = q === -1 ? req.url : req.url.slice(0, q);
    const query = q === -1 ? '' : req.url.slice(q);
    const url = this.replace(path, encodeURIComponent) + this.replace(query, formValue);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) headers[name] = this.replace(value, raw);
    const type = req.headers['content-type'] ?? '';
    const encode = /\bjson\b/i.test(type)
      ? (v: string) => JSON.stringify(v).slice(1, -1)
      : /x-www-form-urlencoded/i.test(type)
        ? formValue
        : raw;
    let body = req.body;
    if (typeof body === 'string') body = this.replace(body, encode);
    else if (body && /^multipart\/form-data/i.test(type)) {
      // A multipart body's text fields hold references too; its bytes, read as Latin-1, are kept
      // byte for byte around them (a reference is ASCII; its value goes in as UTF-8).
      const text = body.toString('latin1');
      const bound = this.replace(text, (v) => Buffer.from(v, 'utf8').toString('latin1'));
      if (bound !== text) body = Buffer.from(bound, 'latin1');
    }
    return { ...req, url, headers, body };
  }

  private replace(text: string, encode: (value: string) => string): string {
    if (!text.includes(PREFIX)) return text;
    return text.replace(REF, (ref) => {
      const bound = this.bound.get(ref);
      return bound === undefined ? ref : encode(bound.value);
    });
  }
}

const REF = /rfn-secret-[0-9a-f]{28}/g;

const raw = (value: string) => value;
const formValue = (value: string) => new URLSearchParams({ s: value }).toString().slice(2);
