import { removeVersionFolder, versionFolders } from './publish.js';
import { RETENTION_ACTOR, type VersionLimits } from './store/retention.js';
import type { AuditEntry, PlatformStore } from './store/types.js';

export interface RetentionLog {
  warn(fields: object, message: string): void;
}

/**
 * This instance's side of version retention (`--keep-versions`, `--max-solution-mb`): which
 * versions its executions run on now (never removed under them), and its own folders of versions
 * the store marked removed. The store decides what is removed, in the transaction of a publish
 * (`addVersion`'s limits) or of `retainVersions`; every instance hears of it (a `version` change)
 * and removes its own folder, once no execution of its own runs on the version.
 */
export class VersionRetention {
  /** Executions running, by solution and version. */
  private readonly held = new Map<string, Map<number, number>>();
  /** The newest version each solution is known to have here (an older one's end may free it). */
  private readonly latest = new Map<string, number>();
  log: RetentionLog = { warn: () => undefined };

  constructor(
    private readonly options: {
      readonly store: PlatformStore;
      readonly dataDir: string;
      /** Bytes a solution's kept versions may take. */
      readonly maxBytes: number;
      /** The newest versions kept; 0 keeps all. */
      readonly keep: number;
      /** Records removals in the solution's audit (actor `retention`). */
      readonly audit?: (entries: AuditEntry[]) => Promise<void>;
    },
  ) {}

  /** Audits the versions of `solution` retention removed (one entry each, actor `retention`). */
  async removed(solution: string, versions: readonly number[]): Promise<void> {
    if (versions.length === 0 || !this.options.audit) return;
    const at = new Date().toISOString();
    await this.options.audit(
      versions.map((v) => ({
        at,
        actor: RETENTION_ACTOR,
        solution,
        action: 'version.remove',
        target: `version ${v}`,
        outcome: 'ok',
        correlationId: null,
        durationMs: null,
      })),
    );
  }

  /** The limits a publish of `solution` on this instance is held to. */
  limits(solution: string): VersionLimits {
    return { maxBytes: this.options.maxBytes, keep: this.options.keep, inUse: this.inUse(solution) };
  }

  /** The versions of `solution` executions run on here now. */
  inUse(solution: string): number[] {
    return [...(this.held.get(solution)?.keys() ?? [])];
  }

  /** Marks `version` in use until the returned function is called (once). */
  hold(solution: string, version: number): () => void {
    const versions = this.held.get(solution) ?? new Map<number, number>();
    this.held.set(solution, versions);
    versions.set(version, (versions.get(version) ?? 0) + 1);
    this.published(solution, version);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (versions.get(version) ?? 1) - 1;
      if (left > 0) {
        versions.set(version, left);
        return;
      }
      versions.delete(version);
      if (versions.size === 0 && this.held.get(solution) === versions) this.held.delete(solution);
      // The last execution on a version older than the newest: retention may have kept it for
      // that execution alone.
      if (version < (this.latest.get(solution) ?? version)) void this.retain(solution);
    };
  }

  /** `version` of `solution` exists (a publish here, an execution on it). */
  published(solution: string, version: number): void {
    if (version > (this.latest.get(solution) ?? 0)) this.latest.set(solution, version);
  }

  /** Removes what retention now may for `solution` (its versions past `keep` not in use here). */
  async retain(solution: string): Promise<void> {
    if (this.options.keep <= 0) return;
    try {
      const removed = await this.options.store.retainVersions(solution, {
        keep: this.options.keep,
        inUse: this.inUse(solution),
      });
      await this.prune(solution);
      await this.removed(solution, removed);
    } catch (error) {
      // The next publish or execution's end tries again; nothing depends on it now.
      this.log.warn({ solution, err: error }, 'retention could not remove old versions');
    }
  }

  /**
   * Removes this instance's folders of the versions of `solution` the store marked removed (none
   * in use here). Called for every `version` change, from any instance.
   */
  async prune(solution: string): Promise<void> {
    const versions = await this.options.store.listVersions(solution);
    if (versions[0]) this.published(solution, versions[0].version);
    const inUse = this.inUse(solution);
    for (const v of versions) {
      if (v.removed && !inUse.includes(v.version))
        removeVersionFolder(this.options.dataDir, solution, v.version);
    }
  }

  /** At start: the folders of versions removed while this instance was not running. */
  async pruneAll(): Promise<void> {
    for (const solution of versionFolders(this.options.dataDir).keys()) await this.prune(solution);
  }
}
