import type { AuditEntry, AuditFilter, PlatformStore } from './store/types.js';

/**
 * The audit trail, with group commits: a request's entry is written before its answer goes out
 * (an instance killed right after answering has lost nothing it answered), yet many requests share
 * one transaction. Entries recorded while a batch is being written go together in the next one,
 * and entries of the same event-loop turn wait for each other, so under load the commits stay few
 * and a lone request waits for one write only.
 */
export class AuditLog {
  private pending: AuditEntry[] = [];
  /** The batch entries recorded now will go in, and when it is written. */
  private next: Promise<void> | undefined;
  /** The batch being written (the next one starts after it). */
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly store: PlatformStore) {}

  /** Entries recorded and not yet being written (the metrics' audit queue depth). */
  get queued(): number {
    return this.pending.length;
  }

  /** Resolves once the entry is stored (rejects with the store's error when it cannot be). */
  record(entry: AuditEntry): Promise<void> {
    this.pending.push(entry);
    this.next ??= this.schedule();
    return this.next;
  }

  private schedule(): Promise<void> {
    const batch = this.writing
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => {
        const entries = this.pending;
        this.pending = [];
        this.next = undefined;
        return this.store.audit(entries);
      });
    // The next batch waits for this one, whether or not it could be written.
    this.writing = batch.catch(() => undefined);
    return batch;
  }

  /** Waits until everything recorded so far is stored. */
  async flush(): Promise<void> {
    if (this.next) await this.next.catch(() => undefined);
    await this.writing;
  }

  async list(solution: string | null, limit: number, filter?: AuditFilter): Promise<AuditEntry[]> {
    await this.flush();
    return this.store.listAudit(solution, limit, filter);
  }
}
