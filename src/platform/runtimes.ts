import { StoreCredentialProvider } from '../auth/provider.js';
import { loadSolution } from '../definition/solution.js';
import { SYSTEM_CLOCK } from '../errors/clock.js';
import type { AddressGuard } from '../http/address-guard.js';
import { DEFAULT_HTTP } from '../http/options.js';
import { createRuntime, type Runtime } from '../runtime/runtime.js';
import { type Ceilings, capSettings } from './ceilings.js';
import { PlatformError } from './errors.js';
import { materialise } from './publish.js';
import { guardedFetch } from './ssrf.js';
import type { PlatformStore, VersionRecord } from './store/types.js';
import type { TtlCache } from './ttl-cache.js';
import type { Vault } from './vault/vault.js';

/**
 * The largest response body the platform reads for any solution: an author's
 * `settings.http.maxResponseMb` may lower it, not raise it (every solution shares the process's
 * memory).
 */
export const PLATFORM_MAX_RESPONSE_BYTES = DEFAULT_HTTP.maxResponseBytes;

/** How long a replaced version's runtime stays open for executions still running on it. */
const RETIRE_AFTER_MS = 60_000;

/**
 * One runtime per published solution version, made on first use and shared by every execution of
 * that version (one connection pool, one expression cache). A new version replaces it; the old one
 * is closed once executions in flight had time to finish.
 */
export class Runtimes {
  private readonly current = new Map<string, { version: number; runtime: Promise<Runtime> }>();
  private readonly retiring = new Set<Runtime>();

  constructor(
    private readonly options: {
      readonly dataDir: string;
      readonly store: PlatformStore;
      readonly vault: Vault;
      readonly guardFor: (solution: string) => AddressGuard | undefined;
      readonly versions: TtlCache<string, VersionRecord | undefined>;
      readonly ceilings: Ceilings;
    },
  ) {}

  /** The runtime of the solution's current version. */
  async get(solution: string): Promise<{ runtime: Runtime; version: number }> {
    const latest = await this.options.versions.get(solution, () =>
      this.options.store.currentVersion(solution),
    );
    if (!latest) {
      throw new PlatformError(
        'SOLUTION_NOT_PUBLISHED',
        `solution '${solution}' has no published version: run 'restfn publish'`,
      );
    }
    const held = this.current.get(solution);
    if (held?.version === latest.version) return { runtime: await held.runtime, version: latest.version };
    const runtime = this.make(solution, latest.version);
    const entry = { version: latest.version, runtime };
    this.current.set(solution, entry);
    // One that could not be made (the database went away mid-way) is not kept: the next request
    // makes it again, instead of getting this failure for as long as the version is current.
    runtime.catch(() => {
      if (this.current.get(solution) === entry) this.current.delete(solution);
    });
    if (held)
      void held.runtime.then(
        (old) => this.retire(old),
        () => undefined,
      );
    return { runtime: await runtime, version: latest.version };
  }

  private async make(solution: string, version: number): Promise<Runtime> {
    const { dataDir, store, vault, guardFor } = this.options;
    const files = await store.versionFiles(solution, version);
    if (!files)
      throw new PlatformError('SOLUTION_NOT_PUBLISHED', `solution '${solution}' version ${version} is gone`);
    const root = materialise(dataDir, solution, version, files);
    const loaded = loadSolution(root, { displayBase: root });
    const guard = guardFor(solution);
    const settings = loaded.settings?.definition?.settings;
    // Every limit the author set, held to the operator's ceilings (publish warned of each).
    const capped = capSettings(settings, this.options.ceilings).options;
    const askedMb = settings?.http?.maxResponseMb;
    const maxResponseBytes = Math.min(
      askedMb == null ? PLATFORM_MAX_RESPONSE_BYTES : Math.round(askedMb * 1024 * 1024),
      PLATFORM_MAX_RESPONSE_BYTES,
    );
    const runtime = createRuntime(loaded, {
      ...capped,
      http: { ...capped.http, maxResponseBytes },
      credentials: new StoreCredentialProvider(
        () => vault.records(solution),
        SYSTEM_CLOCK,
        guard ? guardedFetch(guard) : undefined,
        true,
      ),
      ...(guard ? { addressGuard: guard } : {}),
      maskOutput: true,
    });
    await runtime.ready();
    return runtime;
  }

  private retire(runtime: Runtime): void {
    this.retiring.add(runtime);
    setTimeout(() => {
      this.retiring.delete(runtime);
      void closeQuietly(runtime);
    }, RETIRE_AFTER_MS).unref();
  }

  async close(): Promise<void> {
    const all = [...this.current.values()].map((h) => h.runtime.then(closeQuietly, () => undefined));
    await Promise.all([...all, ...[...this.retiring].map(closeQuietly)]);
    this.current.clear();
    this.retiring.clear();
  }
}

/**
 * Closing a runtime runs in a timer or at shutdown: whatever an author's work left behind, it must
 * never throw there (an exception in a timer ends the process, and every solution with it).
 */
async function closeQuietly(runtime: Runtime): Promise<void> {
  try {
    await runtime.close();
  } catch {
    // What could not be closed is dropped; the garbage collector takes it.
  }
}
