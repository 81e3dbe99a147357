import { type CredentialRecords, StoreCredentialProvider } from '../../auth/provider.js';
import { loadSolution } from '../../definition/solution.js';
import { SYSTEM_CLOCK } from '../../errors/clock.js';
import type { ScriptLog } from '../../expression/scripts/sandbox.js';
import type { CallObserver } from '../../runtime/options.js';
import { createRuntime, type Runtime } from '../../runtime/runtime.js';
import { type Ceilings, capSettings } from '../ceilings.js';
import { guardedFetch, platformGuard } from '../ssrf.js';
import { hostsOf } from '../store/allowed-targets.js';

/** Solutions whose runtimes one worker keeps (the least recently used idle one goes first). */
const KEPT = 32;

interface Held {
  readonly version: number;
  /** The API's allowed targets it was made with (a change makes it again). */
  readonly hosts: string;
  readonly runtime: Promise<Runtime>;
  /** Executions running on it now. */
  busy: number;
  /** Replaced (a new version, or evicted): closed once no execution runs on it. */
  retired: boolean;
}

/**
 * A worker's runtimes: one per solution, for its current version, made on first use and shared
 * by that worker's executions of it (one connection pool, one expression cache, one script
 * sandbox). A new version replaces it; the old one is closed when the last execution on it ends.
 * Closing never throws: whatever an author's work left behind must not end the worker.
 */
export class SolutionRuntimes {
  private readonly held = new Map<string, Held>();

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
    },
  ) {}

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
      if (held) this.retire(held);
      held = { version, hosts, runtime: this.make(solution, root, extra), busy: 0, retired: false };
      const made = held;
      // One that could not be made is not kept: the next request makes it again.
      made.runtime.catch(() => {
        if (this.held.get(solution) === made) this.held.delete(solution);
      });
      this.held.set(solution, held);
      this.evict();
    } else {
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

  private async make(solution: string, root: string, extraHosts: readonly string[]): Promise<Runtime> {
    const loaded = loadSolution(root, { displayBase: root });
    const guard = platformGuard({
      allowPrivateTargets: this.config.allowPrivateTargets,
      allowHosts: [...hostsOf(this.config.allowTargets, solution), ...extraHosts],
    });
    // Every limit the author set, held to the operator's ceilings (publish warned of each).
    const capped = capSettings(loaded.settings?.definition?.settings, this.config.ceilings).options;
    const runtime = createRuntime(loaded, {
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
    return runtime;
  }

  /** Past `KEPT` solutions, the least recently used idle ones are closed. */
  private evict(): void {
    for (const [solution, held] of this.held) {
      if (this.held.size <= KEPT) return;
      if (held.busy > 0) continue;
      this.held.delete(solution);
      this.retire(held);
    }
  }

  private retire(held: Held): void {
    held.retired = true;
    if (held.busy === 0) closeHeld(held);
  }

  async close(): Promise<void> {
    await Promise.all([...this.held.values()].map((h) => h.runtime.then(closeQuietly, () => undefined)));
    this.held.clear();
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
