import { hostsOf, type StoredTargets } from './store/allowed-targets.js';
import type { PlatformStore } from './store/types.js';

/**
 * The private targets each solution may call: the operator's `--allow-target` entries (fixed at
 * start) and those an admin allowed through the API (kept in the store). The stored list is read
 * once and read again after a change on any instance (the store's `targets` change, or `all` when
 * changes may have been missed), so every instance on one database allows the same hosts.
 */
export class AllowedTargets {
  private stored: Promise<StoredTargets> | undefined;

  constructor(
    private readonly store: PlatformStore,
    /** `--allow-private-targets` and `--allow-target`. */
    readonly flags: {
      readonly allowPrivateTargets: boolean;
      readonly allowTargets: Readonly<Record<string, readonly string[]>>;
    },
  ) {
    store.onChange((change) => {
      if (change.kind === 'targets' || change.kind === 'all') this.stored = undefined;
    });
  }

  /** The API's list (solution -> hosts). */
  storedTargets(): Promise<StoredTargets> {
    if (!this.stored) {
      const reading = this.store.allowedTargets();
      this.stored = reading;
      // A failed read is not kept: the next execution reads again.
      reading.catch(() => {
        if (this.stored === reading) this.stored = undefined;
      });
    }
    return this.stored;
  }

  /** The hosts the API allowed `solution` (the flag's are in the executor's own config). */
  async storedFor(solution: string): Promise<readonly string[]> {
    return hostsOf(await this.storedTargets(), solution);
  }
}
