import { type CredentialRecords, StoreCredentialProvider } from '../../auth/provider.js';
import { SYSTEM_CLOCK } from '../../errors/clock.js';
import type { ScriptLog } from '../../expression/scripts/sandbox.js';
import type { CallObserver } from '../../runtime/options.js';
import { createRuntime, type Runtime } from '../../runtime/runtime.js';
import { type Ceilings, capSettings } from '../ceilings.js';
import { guardedFetch, platformGuard } from '../ssrf.js';
import { hostsOf } from '../store/allowed-targets.js';
import { loadPublished } from './prepared-load.js';

/**
 * What a runtime holds besides its definitions, in bytes: its connection pool, plans, compiled
 * expressions. Measured: ~53 KB of heap for 20 small functions after each ran once, whose prepared
 * form is 18.6 KB; so this and three times the prepared form.
 */
const RUNTIME_BYTES = 16 * 1024;
/** The heap a runtime takes per byte of its prepared form (see RUNTIME_BYTES). */
const BYTES_PER_PREPARED_BYTE = 3;
/** A solution with expression scripts has a QuickJS sandbox: its WebAssembly memory, roughly. */
const SANDBOX_BYTES = 2 * 1024 * 1024;

interface Held {
  readonly version: number;
  /** The API's allowed targets it was made with (a change makes it again). */
  readonly hosts: string;
  runtime: Promise<Runtime>;
  /** What the cache counts it as (an estimate, from its prepared form), once made. */
  bytes: number;
  /** Executions running on it now. */
  busy: number;
  /** Replaced (a new version, or evicted): closed once no execution runs on it. */
  retired: boolean;
}

/** The cache's counts since the last report (hits, misses, the solutions evicted) and its size now. */
export interface CacheReport {
  readonly hits: number;
  readonly misses: number;
  readonly evicted: readonly string[];
  readonly bytes: number;
}

/**
 * A worker's runtimes: one per solution, for its current version, made on first use and shared
 * by that worker's executions of it (one connection pool, one expression cache, one script
 * sandbox). A new version replaces it; the old one is closed when the last execution on it ends.
 * The runtimes kept are bounded by their estimated size (`maxBytes`, the worker's share of
 * `--solution-cache-mb`): past it the least recently used idle ones are closed. Making one again
 * costs little (its version's prepared form, no YAML), but its connections are new.
 * Closing never throws: whatever an author's work left behind must not end the worker.
 */
export class SolutionRuntimes {
  private readonly held = new Map<string, Held>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;
  private evicted: string[] = [];
  private maxBytes: number;

  constructor(
    private readonly config: {
      readonly ceilings: Ceilings;
      readonly allowPrivateTargets: boolean;
      readonly allowTargets: Readonly<Record<string, readonly string[]>>;
      /** The solution's credential records (the request thread holds the vault). */
      readonly records: (solution: string) => CredentialRecords;
      /** Told of a solution's requests and retries (the platform's metrics). */
      readonly observer?: (solution: string) => CallObserver;
      /** Told what a solution's expression scripts write with `console.*` (the server's debug log). */
      readonly scriptLog?: (solution: string, log: ScriptLog) => void;
      /** Bytes the runtimes kept may take at first (estimated); the one in use is kept whatever its size. */
      readonly maxBytes: number;
      /** Where a published version's prepared form is kept (none: its files are parsed each time). */
      readonly preparedPath?: (solution: string, version: number, root: string) => string | undefined;
    },
  ) {
    this.maxBytes = config.maxBytes;
  }

  /** A new limit (the worker's share changed): past it, idle runtimes are closed now. */
  limit(bytes: number): void {
    this.maxBytes = bytes;
    this.evict(undefined);
  }

  /** Hits, misses and evictions since the last report, and the size now; the counts start again. */
  report(): CacheReport | undefined {
    if (this.hits === 0 && this.misses === 0 && this.evicted.length === 0) return undefined;
    const report = { hits: this.hits, misses: this.misses, evicted: this.evicted, bytes: this.bytes };
    this.hits = 0;
    this.misses = 0;
    this.evicted = [];
    return report;
  }

  /** The solutions whose runtimes are kept, least recently used first. */
  kept(): string[] {
    return [...this.held.keys()];
  }

  /**
   * Runs `work` on the runtime of `solution` at `published.number` (its files in `root`), which may
   * call the private hosts `--allow-target` and `published.allowHosts` (the API's) allow.
   */
  async with<T>(
    solution: string,
    published: { readonly number: number; readonly root: string; readonly allowHosts?: readonly string[] },
    work: (runtime: Runtime) => Promise<T>,
  ): Promise<T> {
    const { number: version, root } = published;
    const extra = published.allowHosts ?? [];
    const hosts = extra.join(' ');
    let held = this.held.get(solution);
    if (held?.version !== version || held.hosts !== hosts) {
      this.misses++;
      if (held) this.drop(solution, held);
      const made: Held = {
        version,
        hosts,
        runtime: Promise.resolve(undefined!),
        bytes: 0,
        busy: 0,
        retired: false,
      };
      made.runtime = this.make(solution, version, root, extra, made);
      // One that could not be made is not kept: the next request makes it again.
      made.runtime.catch(() => this.drop(solution, made));
      this.held.set(solution, made);
      held = made;
    } else {
      this.hits++;
      // Most recently used last.
      this.held.delete(solution);
      this.held.set(solution, held);
    }
    held.busy++;
    try {
      return await work(await held.runtime);
    } finally {
      held.busy--;
      if (held.retired && held.busy === 0) closeHeld(held);
    }
  }

  private async make(
    solution: string,
    version: number,
    root: string,
    extraHosts: readonly string[],
    held: Held,
  ): Promise<Runtime> {
    const loaded = loadPublished(root, this.config.preparedPath?.(solution, version, root));
    const guard = platformGuard({
      allowPrivateTargets: this.config.allowPrivateTargets,
      allowHosts: [...hostsOf(this.config.allowTargets, solution), ...extraHosts],
    });
    // Every limit the author set, held to the operator's ceilings (publish warned of each).
    const capped = capSettings(loaded.solution.settings?.definition?.settings, this.config.ceilings).options;
    const runtime = createRuntime(loaded.solution, {
      ...capped,
      credentials: new StoreCredentialProvider(() => this.config.records(solution), SYSTEM_CLOCK, {
        ...(guard ? { fetchWith: guardedFetch(guard) } : {}),
        requireOrigins: true,
        perUser: true,
      }),
      ...(guard ? { addressGuard: guard } : {}),
      maskOutput: true,
      // `@ctx.solution.id` is the platform's name for the solution (its address), whatever solution.yaml says.
      solutionId: solution,
      ...(this.config.observer ? { observer: this.config.observer(solution) } : {}),
      ...(this.config.scriptLog
        ? { onScriptLog: (log: ScriptLog) => this.config.scriptLog!(solution, log) }
        : {}),
    });
    await runtime.ready();
    // Counted once made, and only while it is still the one kept (a new version may have replaced it).
    if (this.held.get(solution) === held) {
      held.bytes =
        RUNTIME_BYTES +
        loaded.bytes * BYTES_PER_PREPARED_BYTE +
        (loaded.solution.scripts.length > 0 ? SANDBOX_BYTES : 0);
      this.bytes += held.bytes;
      this.evict(solution);
    }
    return runtime;
  }

  /** Past `maxBytes`, the least recently used idle runtimes are closed (never `keep`'s). */
  private evict(keep: string | undefined): void {
    for (const [solution, held] of this.held) {
      if (this.bytes <= this.maxBytes) return;
      if (held.busy > 0 || solution === keep) continue;
      this.drop(solution, held);
      this.evicted.push(solution);
    }
  }

  /** No longer kept: closed once no execution runs on it. */
  private drop(solution: string, held: Held): void {
    if (this.held.get(solution) === held) this.held.delete(solution);
    this.bytes -= held.bytes;
    held.bytes = 0;
    held.retired = true;
    if (held.busy === 0) closeHeld(held);
  }

  async close(): Promise<void> {
    await Promise.all([...this.held.values()].map((h) => h.runtime.then(closeQuietly, () => undefined)));
    this.held.clear();
    this.bytes = 0;
  }
}

function closeHeld(held: Held): void {
  void held.runtime.then(closeQuietly, () => undefined);
}

/**
 * Closing a runtime runs in a timer or at shutdown: whatever an author's work left behind, it must
 * never throw there (an exception in a timer ends the thread).
 */
async function closeQuietly(runtime: Runtime): Promise<void> {
  try {
    await runtime.close();
  } catch {
    // What could not be closed is dropped; the garbage collector takes it.
  }
}
