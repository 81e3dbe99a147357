import { randomBytes } from 'node:crypto';
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
  private readonly nonce = randomBytes(12).toString('hex');
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
   * percent-encoded in the path, form-encoded in the query, JSON-escaped in a JSON body, as it is in
   * a header or a text body. Bytes (an upload) carry no references.
   */
  bind(req: OutboundRequest): OutboundRequest {
    if (this.bound.size === 0) return req;
    const q = req.url.indexOf('?');
    const path = q === -1 ? req.url : req.url.slice(0, q);
    const query = q === -1 ? '' : req.url.slice(q);
    const url =
      this.replace(path, encodeURIComponent) +
      this.replace(query, (v) => new URLSearchParams({ s: v }).toString().slice(2));
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) headers[name] = this.replace(value, raw);
    const json = /\bjson\b/i.test(req.headers['content-type'] ?? '');
    const body =
      typeof req.body === 'string'
        ? this.replace(req.body, json ? (v) => JSON.stringify(v).slice(1, -1) : raw)
        : req.body;
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
