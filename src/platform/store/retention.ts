import { PlatformError } from '../errors.js';

/**
 * What a solution's stored versions may take (`restfn serve --max-solution-mb`, `--keep-versions`):
 * pure decisions, which both engines make inside the transaction that adds or removes versions,
 * so instances publishing together decide on the same rows.
 */
export interface VersionLimits {
  /** Bytes the kept versions' files may take, the new one's included. */
  readonly maxBytes: number;
  /** The newest versions always kept; 0 keeps every version (only the quota bounds them). */
  readonly keep: number;
  /** Versions this instance runs executions on now: kept whatever their age. */
  readonly inUse: readonly number[];
}

/** Who removes versions past `--keep-versions` (the Versions row's `removed_by`). */
export const RETENTION_ACTOR = 'retention';

/** A stored version as retention sees it. */
export interface StoredVersion {
  readonly version: number;
  /** Bytes of its stored files (the JSON the store holds). */
  readonly size: number;
  readonly removed: boolean;
}

/**
 * The versions to remove now: the live ones past the newest `keep`, except those in use. The
 * newest (the current one) is never removed.
 */
export function versionsToRemove(
  versions: readonly StoredVersion[],
  limits: Omit<VersionLimits, 'maxBytes'>,
): number[] {
  if (limits.keep <= 0) return [];
  const live = versions.filter((v) => !v.removed).sort((a, b) => b.version - a.version);
  return live
    .slice(Math.max(1, limits.keep))
    .map((v) => v.version)
    .filter((v) => !limits.inUse.includes(v));
}

/**
 * A publish of `size` bytes as version `next`: the versions it makes retention remove, or the
 * `SOLUTION_QUOTA` refusal when what would be kept (the new version with the others retention
 * keeps) is past the quota. Nothing is decided from what retention has not removed yet.
 */
export function planPublish(
  solution: string,
  versions: readonly StoredVersion[],
  next: number,
  size: number,
  limits: VersionLimits,
): { remove: number[] } {
  const all = [...versions, { version: next, size, removed: false }];
  const remove = versionsToRemove(all, limits);
  const kept = all.filter((v) => !v.removed && v.version !== next && !remove.includes(v.version));
  const used = kept.reduce((sum, v) => sum + v.size, 0);
  if (used + size > limits.maxBytes) throw quotaError(solution, used, kept.length, size, limits);
  return { remove };
}

function quotaError(
  solution: string,
  used: number,
  versions: number,
  size: number,
  limits: VersionLimits,
): PlatformError {
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  const keeping =
    limits.keep > 0
      ? `keep fewer versions (restfn serve --keep-versions, now ${limits.keep})`
      : 'keep fewer versions (restfn serve --keep-versions; now every version is kept)';
  return new PlatformError(
    'SOLUTION_QUOTA',
    `solution '${solution}' keeps ${mb(used)} in ${versions} version(s) and this upload adds ${mb(size)}: past its quota of ${mb(limits.maxBytes)} (restfn serve --max-solution-mb); nothing was published. Publish smaller files, or ask the operator to ${keeping} or to raise --max-solution-mb`,
    { usedBytes: used, uploadBytes: size, quotaBytes: limits.maxBytes, keptVersions: versions },
  );
}
