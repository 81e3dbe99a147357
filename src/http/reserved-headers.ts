/**
 * Request headers a function may not set, each with why: restfn sets them itself, because they
 * decide how the bytes of the exchange are read. `Accept-Encoding` chose a coding that every later
 * step would have read as opaque bytes (an echoed credential in a gzip passed every mask);
 * hop-by-hop headers (RFC 9110 7.6.1) and the framing ones belong to the connection, not the call.
 */
export const RESERVED_HEADERS: ReadonlyMap<string, string> = new Map([
  ['accept-encoding', 'restfn asks for the content codings it decodes itself (gzip, deflate, br)'],
  ['connection', 'it is hop-by-hop: restfn owns the connection'],
  ['keep-alive', 'it is hop-by-hop: restfn owns the connection'],
  ['proxy-connection', 'it is hop-by-hop: restfn owns the connection'],
  ['te', 'it is hop-by-hop: restfn decides which transfer codings it reads'],
  ['trailer', 'it is hop-by-hop: restfn frames the request'],
  ['transfer-encoding', 'restfn frames the request body'],
  ['upgrade', 'it would change the protocol of the connection'],
  ['content-length', 'restfn frames the request body'],
  ['host', 'the host comes from the url'],
]);

/** Why `name` is reserved, or undefined when a function may send it. */
export function reservedHeader(name: string): string | undefined {
  return RESERVED_HEADERS.get(name.toLowerCase());
}
