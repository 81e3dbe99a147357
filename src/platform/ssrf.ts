import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { CredentialError } from '../errors/credential-error.js';
import { type AddressGuard, AddressRefused, checkLiteral, guardedConnect } from '../http/address-guard.js';

/**
 * The address ranges a server must not reach on an author's say-so (OWASP SSRF prevention):
 * where the platform itself, its database or a cloud metadata service (169.254.169.254) live, and
 * every other range IANA's special-purpose registries (RFC 6890) do not call globally reachable.
 * The first row that holds an address gives its reason, so a narrower row goes before a wider one.
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
  ['192.88.99.0', 24, 'ipv4', 'a 6to4 relay anycast address (deprecated)'],
  ['192.0.2.0', 24, 'ipv4', 'a documentation address'],
  ['198.51.100.0', 24, 'ipv4', 'a documentation address'],
  ['203.0.113.0', 24, 'ipv4', 'a documentation address'],
  ['224.0.0.0', 4, 'ipv4', 'a multicast address'],
  ['240.0.0.0', 4, 'ipv4', 'a reserved address'],
  ['::', 128, 'ipv6', 'an unspecified address'],
  ['::1', 128, 'ipv6', 'a loopback address'],
  ['fc00::', 7, 'ipv6', 'a unique-local address'],
  ['fe80::', 10, 'ipv6', 'a link-local address'],
  ['fec0::', 10, 'ipv6', 'a site-local address (deprecated, still routed inside some networks)'],
  ['ff00::', 8, 'ipv6', 'a multicast address'],
  ['100::', 64, 'ipv6', 'a discard-only address'],
  ['2001:db8::', 32, 'ipv6', 'a documentation address'],
  ['3fff::', 20, 'ipv6', 'a documentation address'],
  ['5f00::', 16, 'ipv6', 'a segment-routing (SRv6) address'],
  // IPv6 forms that carry an IPv4 address, which could be a private one: refused whatever it is
  // (a public service is not reached through a translator, and the translator is on some
  // network's inside). Only an IPv4-mapped address is judged by its IPv4 (`mappedIPv4`): it is
  // how a dual-stack socket writes a plain IPv4 address.
  ['64:ff9b::', 96, 'ipv6', 'a NAT64 address (it embeds an IPv4 address)'],
  ['64:ff9b:1::', 48, 'ipv6', 'a local-use NAT64 address (it embeds an IPv4 address)'],
  ['::', 96, 'ipv6', 'an IPv4-compatible IPv6 address'],
  ['::ffff:0:0:0', 96, 'ipv6', 'an IPv4-translated address (it embeds an IPv4 address)'],
  ['2002::', 16, 'ipv6', 'a 6to4 address (it embeds an IPv4 address)'],
  ['2001::', 32, 'ipv6', 'a Teredo address (it embeds an IPv4 address)'],
  ['2001:10::', 28, 'ipv6', 'an ORCHID address'],
  ['2001:20::', 28, 'ipv6', 'an ORCHIDv2 address'],
  ['2001:2::', 48, 'ipv6', 'a benchmarking address'],
  // The rest of the IETF's protocol block (a few anycast services among them; none an API).
  ['2001::', 23, 'ipv6', 'an IETF protocol assignment'],
];

const LISTS = RANGES.map(([network, prefix, family, reason]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { list, family, reason };
});

/**
 * Why `address` is not a public one, or undefined when it is. An IPv4-mapped IPv6 address counts
 * as the IPv4 address it maps, in any spelling (`::ffff:127.0.0.1`, `::ffff:7f00:1`,
 * `0:0:0:0:0:ffff:7f00:1`: URL parsing turns the first into the second).
 */
export function nonPublicReason(address: string): string | undefined {
  const ip = mappedIPv4(address) ?? address;
  const family = isIPv4(ip) ? 'ipv4' : 'ipv6';
  for (const { list, family: f, reason } of LISTS) if (f === family && list.check(ip, family)) return reason;
  return undefined;
}

/** The IPv4 address an IPv4-mapped IPv6 address (`::ffff:0:0/96`) stands for, else undefined. */
function mappedIPv4(address: string): string | undefined {
  if (!isIPv6(address)) return undefined;
  const groups = expandIPv6(address);
  if (groups === undefined || groups.slice(0, 5).some((g) => g !== 0) || groups[5] !== 0xffff)
    return undefined;
  const [hi, lo] = [groups[6]!, groups[7]!];
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part included). */
function expandIPv6(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted) {
    const [a, b, c, d] = dotted.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const part = (s: string) => (s === '' ? [] : s.split(':').map((g) => Number.parseInt(g, 16)));
  const left = part(head);
  const right = tail === undefined ? [] : part(tail);
  const fill = 8 - left.length - right.length;
  if (fill < 0 || (tail === undefined && fill !== 0)) return undefined;
  return [...left, ...new Array<number>(fill).fill(0), ...right];
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
  const allowed = (options.allowHosts ?? []).map(hostAndPort);
  return (address, host, port) =>
    allowed.some(
      (a) =>
        (a.host === host.toLowerCase() || a.host === address) && (a.port === undefined || a.port === port),
    )
      ? undefined
      : nonPublicReason(address);
}

/**
 * An allowed target as `--allow-target` and `restfn targets add` take it, written one way
 * (lower case), or why it is not one: a host name, an IPv4 address, `[IPv6]` or a bare IPv6
 * address, each with an optional `:port` (1-65535). Never a URL or a path.
 */
export function allowedTargetHost(entry: string): { host: string } | { problem: string } {
  const text = entry.trim().toLowerCase();
  const { host, port } = hostAndPort(text);
  if (port !== undefined && (port < 1 || port > 65535)) return { problem: `port ${port} is not 1-65535` };
  const name =
    /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/;
  if (isIPv4(host) || isIPv6(host) || name.test(host)) return { host: text };
  return {
    problem: `'${entry}' is not a host: write a host name or IP address, with :port if only that port (10.0.0.5:8080, api.internal, [fd00::1]:443), without a scheme or a path`,
  };
}

/** `host`, `host:port`, `[v6]:port`, `10.0.0.1:8080`: an `--allow-target` entry. */
export function hostAndPort(entry: string): { host: string; port: number | undefined } {
  const text = entry.toLowerCase();
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) return { host: bracketed[1]!, port: bracketed[2] ? Number(bracketed[2]) : undefined };
  const withPort = /^([^:]+):(\d+)$/.exec(text);
  if (withPort) return { host: withPort[1]!, port: Number(withPort[2]) };
  return { host: text, port: undefined };
}

/**
 * `fetch` for the platform's OAuth token requests (oauth4webapi's `customFetch`), held to the same
 * rule as the functions' own calls: the address is checked in the connection's lookup, a literal
 * IP before the request, and redirects are not followed (a token endpoint does not redirect).
 */
export function guardedFetch(guard: AddressGuard): typeof fetch {
  const dispatcher = new Agent({ connect: guardedConnect(guard, undefined) });
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
