import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RestfnError } from '../errors/restfn-error.js';
import { writeFailureOf } from './store/full.js';
import type { PlatformStore } from './store/types.js';

/** How long a probe that wrote is believed: a load balancer's checks do not each write. */
export const PROBE_TTL_MS = 5000;

/**
 * Whether the platform can write its data now, for `/healthz`: a probe writes a few bytes to a
 * new file in `<data>/tmp` (a version folder's disk; a zero-byte file would need no room) and one
 * row to the store. A probe that wrote is believed for `PROBE_TTL_MS`; a failed one is not kept,
 * so the next check probes again and sees the space freed at once. A write failure a request met
 * (`failed`) ends the belief: the next check probes.
 */
export class DataHealth {
  private wroteAt: number | undefined;
  private probing: Promise<string | undefined> | undefined;

  constructor(
    private readonly options: {
      readonly dataDir: string;
      readonly store: PlatformStore;
      readonly now?: () => number;
    },
  ) {}

  /** Undefined while writes succeed; else the engine's word for why not (`ENOSPC`, `SQLITE_FULL`). */
  check(): Promise<string | undefined> {
    const now = this.options.now?.() ?? Date.now();
    if (this.wroteAt !== undefined && now - this.wroteAt < PROBE_TTL_MS) return Promise.resolve(undefined);
    this.probing ??= this.probe(now).finally(() => {
      this.probing = undefined;
    });
    return this.probing;
  }

  /** A request's write failed for want of room: the next check probes again. */
  failed(): void {
    this.wroteAt = undefined;
  }

  private async probe(now: number): Promise<string | undefined> {
    const failure = (await this.probeFolder()) ?? (await this.probeStore());
    this.wroteAt = failure ? undefined : now;
    return failure;
  }

  private async probeFolder(): Promise<string | undefined> {
    const dir = join(this.options.dataDir, 'tmp');
    const file = join(dir, `probe-${randomUUID()}`);
    try {
      mkdirSync(dir, { recursive: true });
      writeFileSync(file, 'restfn write probe\n'.repeat(4));
      return undefined;
    } catch (error) {
      const cause = writeFailureOf(error);
      if (!cause) throw error;
      return cause;
    } finally {
      rmSync(file, { force: true });
    }
  }

  private async probeStore(): Promise<string | undefined> {
    try {
      await this.options.store.probeWrite();
      return undefined;
    } catch (error) {
      // PostgreSQL's engine errors arrive as STORE_FULL already (its guard).
      if (error instanceof RestfnError && error.code === 'STORE_FULL') return 'the database refused a write';
      const cause = writeFailureOf(error);
      if (!cause) throw error;
      return cause;
    }
  }
}
