import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { buildConnector as BuildConnector } from 'undici';
import { buildConnector } from './undici-parts.js';

/**
 * Decides whether an outbound connection may go to `address` (the resolved IP), asked for `host`:
 * undefined lets it go, a text is the reason it may not. The platform uses it to keep functions
 * written by authors away from its own network (SSRF); the device has none.
 */
export type AddressGuard = (address: string, host: string, port: number) => string | undefined;

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
export function guardedLookup(guard: AddressGuard, port: number): LookupFunction {
  return (hostname, options, callback) => {
    // `node:dns` at the first name looked up (a literal address never is), not at start-up.
    process
      .getBuiltinModule('node:dns')
      .lookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
        if (error) return callback(error, '', 0);
        for (const { address } of addresses) {
          const reason = guard(address, hostname, port);
          if (reason !== undefined)
            return callback(new AddressRefused(refusal(hostname, address, reason)), '', 0);
        }
        if (options.all)
          return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        const [first] = addresses;
        if (!first)
          return callback(
            Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }),
            '',
            0,
          );
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
  const reason = guard(host, host, portOf(url));
  return reason === undefined ? undefined : refusal(host, host, reason);
}

function refusal(host: string, address: string, reason: string): string {
  const via = host === address ? address : `${host} (${address})`;
  return `the target ${via} is ${reason}; the platform does not call such addresses unless an admin allows it (restfn targets add SOLUTION HOST[:PORT]; or restfn serve --allow-target SOLUTION=HOST[:PORT], or --allow-private-targets)`;
}

/** The port a URL connects to: the one written, else its scheme's. */
export function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/**
 * An undici `connect` whose DNS lookups are checked by `guard`, with the port each connection is
 * for (a lookup alone never learns it): an operator may open one port of a private host, not all.
 * One connector per port, made on first use (each keeps its own TLS session cache).
 */
export function guardedConnect(guard: AddressGuard, timeout: number | undefined): BuildConnector.connector {
  const connectors = new Map<number, BuildConnector.connector>();
  return (options, callback) => {
    const port = Number(options.port) || (options.protocol === 'https:' ? 443 : 80);
    let connector = connectors.get(port);
    if (!connector) {
      connector = buildConnector({ ...(timeout ? { timeout } : {}), lookup: guardedLookup(guard, port) });
      connectors.set(port, connector);
    }
    connector(options, callback);
  };
}
