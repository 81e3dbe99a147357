import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

/**
 * Decides whether an outbound connection may go to `address` (the resolved IP), asked for `host`:
 * undefined lets it go, a text is the reason it may not. The platform uses it to keep functions
 * written by authors away from its own network (SSRF); the device has none.
 */
export type AddressGuard = (address: string, host: string) => string | undefined;

/** The error a refused address gives; the transport turns it into `TARGET_REFUSED`. */
export class AddressRefused extends Error {
  readonly code = 'TARGET_REFUSED';
}

/**
 * A `lookup` for `net.connect` that checks every address the name resolves to before the socket
 * connects to it: the check and the connection use the same answer, so a DNS server that answers
 * differently the second time (DNS rebinding) cannot slip past it. Literal IPs are checked too
 * (Node skips `lookup` for them, so they are checked when the request is built: see `checkLiteral`).
 */
export function guardedLookup(guard: AddressGuard): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      for (const { address } of addresses) {
        const reason = guard(address, hostname);
        if (reason !== undefined)
          return callback(new AddressRefused(refusal(hostname, address, reason)), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const [first] = addresses;
      if (!first)
        return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

/**
 * The check for a URL whose host is an IP literal (no lookup happens for those): the reason it is
 * refused, or undefined.
 */
export function checkLiteral(guard: AddressGuard, url: URL): string | undefined {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(host) === 0) return undefined;
  const reason = guard(host, host);
  return reason === undefined ? undefined : refusal(host, host, reason);
}

function refusal(host: string, address: string, reason: string): string {
  const via = host === address ? address : `${host} (${address})`;
  return `the target ${via} is ${reason}; the platform does not call such addresses unless the operator allows it (restfn serve --allow-target SOLUTION=HOST, or --allow-private-targets)`;
}
