import { PlatformError } from '../errors.js';

/**
 * The private targets an admin allowed through the API (`restfn targets add`), kept in the store's
 * `settings` table as one JSON row, so every instance on the same database reads the same list and
 * a restart keeps it. `--allow-target` entries are the operator's and are not in this row.
 */

/** Solution -> hosts (`host`, `host:port`, `[v6]:port`), each as `allowedTargetHost` wrote it. */
export type StoredTargets = Readonly<Record<string, readonly string[]>>;

/** The `settings` row that holds them. */
export const ALLOWED_TARGETS_SETTING = 'allowed_targets';

/**
 * At most this many hosts per solution, and in all: every connection of a solution checks its
 * list, and every instance reads the whole row after each change (an admin's token in the wrong
 * hands, or a script adding in a loop, must not grow them without end).
 */
export const MAX_TARGETS_PER_SOLUTION = 100;
export const MAX_TARGETS = 1000;

/**
 * The hosts `solution` has in `list` (none when it has none). Read as an own property: a solution
 * may be named `constructor` or `valueOf`, which a plain object also answers (with a function).
 */
export function hostsOf(list: StoredTargets, solution: string): readonly string[] {
  return Object.hasOwn(list, solution) ? list[solution]! : [];
}

/**
 * The list with `host` added to (or removed from) `solution`'s, and whether that changed it; an
 * addition past the ceilings is refused (TARGET_LIMIT) and changes nothing.
 */
export function changeTargets(
  targets: StoredTargets,
  solution: string,
  host: string,
  allowed: boolean,
): { targets: StoredTargets; changed: boolean } {
  const hosts = hostsOf(targets, solution);
  const has = hosts.includes(host);
  if (has === allowed) return { targets, changed: false };
  if (allowed) refuseOverCeiling(targets, solution, hosts.length);
  const next = allowed ? [...hosts, host].sort() : hosts.filter((h) => h !== host);
  const rest = Object.fromEntries(Object.entries(targets).filter(([s]) => s !== solution));
  return { targets: next.length > 0 ? { ...rest, [solution]: next } : rest, changed: true };
}

function refuseOverCeiling(targets: StoredTargets, solution: string, count: number): void {
  if (count >= MAX_TARGETS_PER_SOLUTION) {
    throw new PlatformError(
      'TARGET_LIMIT',
      `solution '${solution}' has ${count} allowed targets, the most one may have: remove unused ones first ('restfn targets list', then 'restfn targets remove ${solution} HOST')`,
    );
  }
  const total = Object.values(targets).reduce((n, hosts) => n + hosts.length, 0);
  if (total >= MAX_TARGETS) {
    throw new PlatformError(
      'TARGET_LIMIT',
      `the platform has ${total} allowed targets, the most it keeps: remove unused ones first ('restfn targets list')`,
    );
  }
}

/**
 * The row's value as read: solution -> hosts, only entries of that shape, in an object without a
 * prototype. An absent or unreadable row allows nothing.
 */
export function parseTargets(value: string | undefined): StoredTargets {
  const list: Record<string, readonly string[]> = Object.create(null);
  if (value === undefined) return list;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return list;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return list;
  for (const [solution, hosts] of Object.entries(parsed)) {
    if (Array.isArray(hosts)) list[solution] = hosts.filter((h): h is string => typeof h === 'string');
  }
  return list;
}
