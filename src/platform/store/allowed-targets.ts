/**
 * The private targets an admin allowed through the API (`restfn targets add`), kept in the store's
 * `settings` table as one JSON row, so every instance on the same database reads the same list and
 * a restart keeps it. `--allow-target` entries are the operator's and are not in this row.
 */

/** Solution -> hosts (`host`, `host:port`, `[v6]:port`), each as `allowedTargetHost` wrote it. */
export type StoredTargets = Readonly<Record<string, readonly string[]>>;

/** The `settings` row that holds them. */
export const ALLOWED_TARGETS_SETTING = 'allowed_targets';

/** The list with `host` added to (or removed from) `solution`'s, and whether that changed it. */
export function changeTargets(
  targets: StoredTargets,
  solution: string,
  host: string,
  allowed: boolean,
): { targets: StoredTargets; changed: boolean } {
  const hosts = targets[solution] ?? [];
  const has = hosts.includes(host);
  if (has === allowed) return { targets, changed: false };
  const next = allowed ? [...hosts, host].sort() : hosts.filter((h) => h !== host);
  const { [solution]: _old, ...rest } = targets;
  return { targets: next.length > 0 ? { ...rest, [solution]: next } : rest, changed: true };
}

/** The row's value as read (an absent or unreadable row: nothing allowed). */
export function parseTargets(value: string | undefined): StoredTargets {
  if (value === undefined) return {};
  try {
    const parsed = JSON.parse(value) as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as StoredTargets) : {};
  } catch {
    return {};
  }
}
