import type { AuditEntry, AuditFilter, PlatformStore } from './store/types.js';

/**
 * The audit trail, written in batches: entries wait in memory for at most `flushMs` (or until
 * `maxPending` are waiting) and go to the store in one transaction. One write per execution was
 * the platform's largest single cost (a commit each). Reads and shutdown flush first, so nothing
 * recorded is missing from what an admin reads or lost at a graceful stop.
 */
export class AuditLog {
  private pending: AuditEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: PlatformStore,
    private readonly flushMs = 50,
    private readonly maxPending = 500,
  ) {}

  record(entry: AuditEntry): void {
    this.pending.push(entry);
    if (this.pending.length >= this.maxPending) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.flushMs).unref();
  }

  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length > 0) this.writing = this.writing.then(() => this.store.audit(batch));
    return this.writing;
  }

  async list(solution: string, limit: number, filter?: AuditFilter): Promise<AuditEntry[]> {
    await this.flush();
    return this.store.listAudit(solution, limit, filter);
  }
}
