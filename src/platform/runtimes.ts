import type { Diagnostic } from '../definition/diagnostic.js';
import type { AbortLike } from '../http/abort.js';
import type { AllowedTargets } from './allowed-targets.js';
import { PlatformError } from './errors.js';
import type { Executor } from './executor/pool.js';
import type { ActionInfo, DatasourceInfo, FunctionInfo, Task } from './executor/protocol.js';
import type { Sandboxes } from './executor/sandbox.js';
import type { PublishedNames } from './metric-labels.js';
import { materialise } from './publish.js';
import type { VersionRetention } from './retention.js';
import type { PlatformStore, VersionRecord } from './store/types.js';
import type { TtlCache } from './ttl-cache.js';

/** Descriptions kept by version (what the console lists: read from the definitions in a worker). */
const DESCRIBED = 200;
/**
 * Version folders known to be written, by solution and version: a path each, so many are kept (at
 * 1,000 active solutions, a bound of 200 read every version's files from the store again on most
 * executions; issue 41).
 */
const ROOTS = 100_000;

/**
 * The published solutions as the request thread sees them: which version is current (cached for a
 * second, cleared by every publish on any instance), its files written out once as a folder, and
 * the work on it handed to the executor's workers, which read and run what the author wrote.
 */
/** What the console lists of a version: its functions and datasources, and every function's name. */
interface Described {
  readonly functions: FunctionInfo[];
  readonly datasources: DatasourceInfo[];
  readonly actions: ActionInfo[];
  readonly names: string[];
}

export class Runtimes {
  private readonly described = new Map<string, Promise<Described>>();
  /** Versions written out as folders, by solution and version. */
  private readonly roots = new Map<string, string>();
  /**
   * The names of each solution's current version, for metric labels: one entry per published
   * solution (a name no solution has fails before it is kept), replaced by the next version's.
   */
  private readonly names = new Map<string, { version: number; names: Promise<PublishedNames> }>();

  constructor(
    private readonly options: {
      readonly dataDir: string;
      readonly store: PlatformStore;
      readonly versions: TtlCache<string, VersionRecord | undefined>;
      readonly executor: Executor;
      readonly sandboxes: Sandboxes;
      /** Told which versions executions run on (retention keeps them meanwhile). */
      readonly retention?: VersionRetention;
      /** The private targets an admin allowed through the API, given to each execution. */
      readonly targets?: AllowedTargets;
    },
  ) {}

  /** The solution's current version and its folder. */
  async current(solution: string): Promise<{ number: number; root: string }> {
    const { release, ...version } = await this.acquire(solution);
    release();
    return version;
  }

  /**
   * The solution's current version and its folder, held (retention removes neither) until
   * `release` is called: from the moment the version is known, before its folder is written.
   */
  private async acquire(solution: string): Promise<{
    number: number;
    root: string;
    allowHosts?: readonly string[];
    release: () => void;
  }> {
    const { store, versions, dataDir } = this.options;
    const latest = await versions.get(solution, () => store.currentVersion(solution));
    if (!latest) {
      throw new PlatformError(
        'SOLUTION_NOT_PUBLISHED',
        `solution '${solution}' has no published version: run 'restfn publish'`,
      );
    }
    const release = this.options.retention?.hold(solution, latest.version) ?? (() => undefined);
    try {
      // A version's folder is written once; its files are read from the store only then.
      const key = `${solution}\0${latest.version}`;
      let root = this.roots.get(key);
      if (!root) {
        const files = await store.versionFiles(solution, latest.version);
        if (!files)
          throw new PlatformError(
            'SOLUTION_NOT_PUBLISHED',
            `solution '${solution}' version ${latest.version} is gone`,
          );
        root = materialise(dataDir, solution, latest.version, files);
        if (this.roots.size >= ROOTS) this.roots.clear();
        this.roots.set(key, root);
      }
      const allowHosts = await this.options.targets?.storedFor(solution);
      return { number: latest.version, root, ...(allowHosts?.length ? { allowHosts } : {}), release };
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Runs `task` on the solution's current version, in its worker. */
  async run(
    solution: string,
    task: Exclude<Task, { kind: 'validate' | 'datasource' }>,
    options: { signal?: AbortLike; onPage?: (page: number, json: string) => Promise<void> } = {},
  ): Promise<{ value: unknown; version: number }> {
    const { release, ...version } = await this.acquire(solution);
    try {
      return {
        value: await this.options.executor.run(solution, version, task, options),
        version: version.number,
      };
    } finally {
      release();
    }
  }

  /** A datasource preview on the solution's current version, in a sandbox process (it runs the author's SQL). */
  async sandboxed(
    solution: string,
    task: Extract<Task, { kind: 'datasource' }>,
    user: string,
    signal?: AbortSignal,
  ): Promise<{ value: unknown; version: number }> {
    const { release, ...version } = await this.acquire(solution);
    try {
      return {
        value: await this.options.sandboxes.run(solution, version, task, user, signal),
        version: version.number,
      };
    } finally {
      release();
    }
  }

  /** The functions of the current version (as the console shows them) and every function's name. */
  async describe(solution: string): Promise<{ version: number } & Described> {
    const { release, ...version } = await this.acquire(solution);
    try {
      const key = `${solution}\0${version.number}`;
      let described = this.described.get(key);
      if (!described) {
        described = this.options.executor.run(solution, version, { kind: 'describe' }) as Promise<Described>;
        if (this.described.size >= DESCRIBED) this.described.clear();
        this.described.set(key, described);
        described.catch(() => this.described.delete(key));
      }
      return { version: version.number, ...(await described) };
    } finally {
      release();
    }
  }

  /**
   * Loads the newly published version in a worker now, off the publish's answer: its folder, its
   * prepared form (prepared-solution.ts) and its description are ready before its first execution,
   * which then pays no YAML parsing on its request path (issue 41). A failure here is the first
   * execution's to report.
   */
  prepare(solution: string): void {
    this.describe(solution).catch(() => undefined);
  }

  /** The function, datasource and action names of the current version (no version: it throws). */
  async publishedNames(solution: string): Promise<PublishedNames> {
    const { number } = await this.current(solution);
    let held = this.names.get(solution);
    if (held?.version !== number) {
      const made = {
        version: number,
        names: this.describe(solution).then((d) => ({
          function: new Set(d.names),
          datasource: new Set(d.datasources.map((x) => x.name)),
          action: new Set(d.actions.map((x) => x.name)),
        })),
      };
      made.names.catch(() => {
        if (this.names.get(solution) === made) this.names.delete(solution);
      });
      this.names.set(solution, made);
      held = made;
    }
    return held.names;
  }

  /** A publish's validation, in the solution's worker (its YAML is the author's). */
  validate(
    solution: string,
    files: Readonly<Record<string, string>>,
  ): Promise<{ diagnostics: readonly Diagnostic[]; errors: number; warnings: number }> {
    return this.options.executor.run(solution, undefined, { kind: 'validate', files }) as Promise<{
      diagnostics: readonly Diagnostic[];
      errors: number;
      warnings: number;
    }>;
  }

  /** The workers' solution caches, for the metrics. */
  cacheStats(): ReturnType<Executor['cacheStats']> {
    return this.options.executor.cacheStats();
  }

  /** The executor's and the sandboxes' state, for the metrics. */
  poolStats(): ReturnType<Executor['stats']> & { sandboxes: number } {
    return { ...this.options.executor.stats(), sandboxes: this.options.sandboxes.runningCount };
  }

  close(): Promise<void> {
    this.options.sandboxes.close();
    return this.options.executor.close();
  }
}
