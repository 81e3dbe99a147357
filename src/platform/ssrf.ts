import { BlockList, isIPv4 } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { CredentialError } from '../errors/credential-error.js';
import { type AddressGuard, AddressRefused, checkLiteral, guardedLookup } from '../http/address-guard.js';

/**
 * The address ranges a server must not reach on an author's say-so (OWASP SSRF prevention):
 * where the platform itself, its database or a cloud metadata service (169.254.169.254) live.
 */
const RANGES: ReadonlyArray<readonly [string, number, 'ipv4' | 'ipv6', string]> = [
  ['0.0.0.0', 8, 'ipv4', 'an unspecified address'],
  ['127.0.0.0', 8, 'ipv4', 'a loopback address'],
  ['10.0.0.0', 8, 'ipv4', 'a private address'],
  ['172.16.0.0', 12, 'ipv4', 'a private address'],
  ['192.168.0.0', 16, 'ipv4', 'a private address'],
  ['100.64.0.0', 10, 'ipv4', 'a shared (carrier-grade NAT) address'],
  ['169.254.0.0', 16, 'ipv4', 'a link-local address (cloud metadata lives here)'],
  ['192.0.0.0', 24, 'ipv4', 'an IETF protocol assignment'],
  ['198.18.0.0', 15, 'ipv4', 'a benchmarking address'],
  ['224.0.0.0', 4, 'ipv4', 'a multicast address'],
  ['240.0.0.0', 4, 'ipv4', 'a reserved address'],
  ['::', 128, 'ipv6', 'an unspecified address'],
  ['::1', 128, 'ipv6', 'a loopback address'],
  ['fc00::', 7, 'ipv6', 'a unique-local address'],
  ['fe80::', 10, 'ipv6', 'a link-local address'],
  ['ff00::', 8, 'ipv6', 'a multicast address'],
  ['64:ff9b::', 96, 'ipv6', 'a NAT64 address'],
];

const LISTS = RANGES.map(([network, prefix, family, reason]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { list, family, reason };
});

/** Why `address` is not a public one, or undefined when it is. IPv4-mapped IPv6 counts as IPv4. */
export function nonPublicReason(address: string): string | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const ip = mapped ?? address;
  const family = isIPv4(ip) ? 'ipv4' : 'ipv6';
  for (const { list, family: f, reason } of LISTS) if (f === family && list.check(ip, family)) return reason;
  return undefined;
}

/**
 * The platform's guard: public addresses only, unless private targets are allowed for everyone
 * (`--allow-private-targets`) or the host is on the solution's allowlist (host names or IPs, as
 * written in the server settings).
 */
export function platformGuard(options: {
  readonly allowPrivateTargets: boolean;
  readonly allowHosts?: readonly string[];
}): AddressGuard | undefined {
  if (options.allowPrivateTargets) return undefined;
  const allowed = new Set((options.allowHosts ?? []).map((h) => h.toLowerCase()));
  return (address, host) =>
    allowed.has(host.toLowerCase()) || allowed.has(address) ? undefined : nonPublicReason(address);
}

/**
 * `fetch` for the platform's OAuth token requests (oauth4webapi's `customFetch`), held to the same
 * rule as the functions' own calls: the address is checked in the connection's lookup, a literal
 * IP before the request, and redirects are not followed (a token endpoint does not redirect).
 */
export function guardedFetch(guard: AddressGuard): typeof fetch {
  const dispatcher = new Agent({ connect: { lookup: guardedLookup(guard) } });
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const refused = checkLiteral(guard, url);
    if (refused)
      throw new CredentialError(
        'TARGET_REFUSED',
        `the token request to ${url.origin} was not sent: ${refused}`,
      );
    try {
      return (await undiciFetch(input as string, {
        ...(init as object),
        dispatcher,
        redirect: 'manual',
      })) as unknown as Response;
    } catch (error) {
      const cause = (error as { cause?: unknown }).cause;
      if (cause instanceof AddressRefused) {
        throw new CredentialError(
          'TARGET_REFUSED',
          `the token request to ${url.origin} was not sent: ${cause.message}`,
        );
      }
      throw error;
    }
  };
}
