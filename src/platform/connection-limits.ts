import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { BlockList, isIP, type Socket } from 'node:net';

/**
 * Limits on the connections the platform holds, so that no one address (and no crowd) takes every
 * open file the process has: `--max-connections` in all, `--max-connections-per-address` from one
 * TCP peer, `--headers-timeout-ms` to send a request's headers (a connection that sends half of
 * them and waits is closed). A `--trust-proxy` address is not held to the per-address limit: its
 * connections are everyone's.
 */

/** The time a client has to send a request's headers (Node's own default is 60 s). */
export const DEFAULT_HEADERS_TIMEOUT_MS = 20_000;
/** A whole request, body included (a 32 MB upload on a slow link), as Node's default. */
const REQUEST_TIMEOUT_MS = 300_000;
/** Connections from one address: a load balancer's or a benchmark's keep-alive pool fits. */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 256;
/** The most `--max-connections` defaults to, whatever the open-file limit. */
const MAX_CONNECTIONS_CAP = 10_000;
/** Where the open-file limit cannot be read (not Linux). */
const MAX_CONNECTIONS_UNKNOWN = 4096;

/**
 * `--max-connections` by default: half the process's open-file limit (the other half for the
 * requests to remote services, the database, the workers' and sandboxes' files), at most 10,000.
 */
export function defaultMaxConnections(openFiles: number | undefined): number {
  if (openFiles === undefined || !Number.isFinite(openFiles) || openFiles <= 0)
    return MAX_CONNECTIONS_UNKNOWN;
  return Math.max(64, Math.min(MAX_CONNECTIONS_CAP, Math.floor(openFiles / 2)));
}

/** The process's soft open-file limit (Linux: /proc/self/limits), or undefined. */
export function openFileLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    return soft === undefined || soft === 'unlimited' ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}

/** How the server's connections are limited, normalised once (`restfn serve` flags). */
export interface ConnectionLimits {
  readonly maxConnections: number;
  readonly maxConnectionsPerAddress: number;
}

/** Node's HTTP server options for the headers' deadline (checked this often: well within it). */
export function headersTimeoutOptions(headersTimeoutMs: number) {
  // Node refuses a headers timeout longer than the request's (when the server is made: fastify
  // sets its own `requestTimeout` only after).
  const requestTimeout = Math.max(REQUEST_TIMEOUT_MS, headersTimeoutMs);
  return {
    http: {
      headersTimeout: headersTimeoutMs,
      requestTimeout,
      connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(headersTimeoutMs / 4))),
    },
    requestTimeout,
  };
}

/**
 * Open connections per address, each within `max` unless `exempt` (a trusted proxy). A pure count:
 * `admit` says whether one more may open (and counts it), `leave` gives it back.
 */
export class AddressCounts {
  private readonly open = new Map<string, number>();

  constructor(
    private readonly max: number,
    private readonly exempt: (address: string) => boolean,
  ) {}

  admit(address: string): boolean {
    if (this.exempt(address)) return true;
    const now = this.open.get(address) ?? 0;
    if (now >= this.max) return false;
    this.open.set(address, now + 1);
    return true;
  }

  leave(address: string): void {
    if (this.exempt(address)) return;
    const now = (this.open.get(address) ?? 1) - 1;
    if (now <= 0) this.open.delete(address);
    else this.open.set(address, now);
  }
}

/** Whether an address is one of the `--trust-proxy` addresses or ranges. */
export function trustedAddresses(ranges: readonly string[]): (address: string) => boolean {
  if (ranges.length === 0) return () => false;
  const list = new BlockList();
  for (const range of ranges) {
    const [address = '', prefix] = range.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return (address) => {
    const plain = plainAddress(address);
    return list.check(plain, isIP(plain) === 6 ? 'ipv6' : 'ipv4');
  };
}

/** `::ffff:10.0.0.1` (an IPv4 peer of a server listening on `::`) as `10.0.0.1`. */
function plainAddress(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/**
 * Applies the limits to the platform's server: Node's own `maxConnections` (past it a new
 * connection is closed at once), and the per-address count, kept from each connection's opening to
 * its close. Refusals are logged at most once every 10 s each.
 */
export function limitConnections(
  server: Server,
  limits: ConnectionLimits,
  trustProxy: readonly string[],
  log: { warn(fields: object, message: string): void },
): void {
  server.maxConnections = limits.maxConnections;
  const counts = new AddressCounts(limits.maxConnectionsPerAddress, trustedAddresses(trustProxy));
  const warned = { all: 0, address: 0 };
  const warn = (kind: 'all' | 'address', fields: object, message: string) => {
    if (Date.now() - warned[kind] < 10_000) return;
    warned[kind] = Date.now();
    log.warn(fields, message);
  };
  server.on('drop', () =>
    warn('all', { maxConnections: limits.maxConnections }, 'connections past --max-connections were closed'),
  );
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined) return;
    const peer = plainAddress(address);
    if (!counts.admit(peer)) {
      warn(
        'address',
        { address: peer, maxConnectionsPerAddress: limits.maxConnectionsPerAddress },
        'connections from one address past --max-connections-per-address were closed',
      );
      socket.destroy();
      return;
    }
    socket.once('close', () => counts.leave(peer));
  });
}
