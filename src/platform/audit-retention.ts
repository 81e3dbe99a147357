import type { Clock } from '../errors/clock.js';
import { RETENTION_ACTOR } from './store/retention.js';
import type { AuditEntry, AuditRemoval, PlatformStore } from './store/types.js';

/**
 * Audit entries are kept 90 days by default: a quarter to answer "who changed this, what ran"
 * for, the span operators commonly keep access logs. No count bound by default: removing entries
 * by count would drop days of them on a busy platform without the operator having chosen it.
 */
export const DEFAULT_AUDIT_RETENTION_DAYS = 90;
/** 0: no bound on the number of entries (only their age). */
export const DEFAULT_AUDIT_MAX_ROWS = 0;
/** How often retention looks for entries past the settings (and once soon after the start). */
export const AUDIT_SWEEP_INTERVAL_MS = 10 * 60_000;
/**
 * Entries one statement removes: a few milliseconds of SQLite's write lock (which executions'
 * audit rows wait for), the request thread free between two.
 */
export const AUDIT_REMOVE_BATCH = 1000;

export interface AuditRetentionSettings {
  /** Entries older than this many days are removed; 0 keeps them whatever their age. */
  readonly days: number;
  /** Only the newest this many entries are kept; 0 keeps any number. */
  readonly maxRows: number;
}

/** Why entries were removed (the metric's `reason`). */
export type AuditRemovalReason = 'age' | 'rows';

/**
 * The time before which entries are past `days` at `nowMs` (ISO, compared with `AuditEntry.at`),
 * or undefined when age removes nothing. An entry written at the cutoff itself is kept.
 */
export function auditCutoff(nowMs: number, days: number): string | undefined {
  return days > 0 ? new Date(nowMs - days * 86_400_000).toISOString() : undefined;
}

export interface AuditRetentionLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/**
 * Audit retention (`--audit-retention-days`, `--audit-max-rows`): removes the entries past the
 * settings, off the request path (a timer), in small batches with the request thread free between
 * them, one instance at a time on a shared database. What was removed is counted (the metrics),
 * logged, and itself audited (actor `retention`, action `audit.remove`): the log says it was cut.
 * Nothing within the settings is removed: only entries older than the cutoff, or below the floor
 * of the newest `maxRows` taken before the batches (entries written since only raise it).
 */
export class AuditRetention {
  log: AuditRetentionLog = { info: () => undefined, warn: () => undefined };
  private timers: NodeJS.Timeout[] = [];
  private running: Promise<number> | undefined;

  constructor(
    private readonly options: {
      readonly store: PlatformStore;
      readonly settings: AuditRetentionSettings;
      readonly clock: Pick<Clock, 'now'>;
      /** Told of each batch removed (the metrics). */
      readonly removed?: (reason: AuditRemovalReason, count: number) => void;
      /** Records the sweep's removal in the audit. */
      readonly audit?: (entries: AuditEntry[]) => Promise<void>;
      readonly batch?: number;
    },
  ) {}

  /** Sweeps soon after the start, then every `intervalMs`; the timers never keep the process up. */
  start(intervalMs = AUDIT_SWEEP_INTERVAL_MS): void {
    const { days, maxRows } = this.options.settings;
    if (days <= 0 && maxRows <= 0) return;
    const sweep = () => void this.sweep();
    this.timers = [setInterval(sweep, intervalMs).unref(), setTimeout(sweep, 1000).unref()];
  }

  /** Stops the timer and waits for a sweep under way. */
  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers = [];
    await this.running?.catch(() => undefined);
  }

  /** Removes what is past the settings now; the number removed (a sweep under way: that one's). */
  sweep(): Promise<number> {
    this.running ??= this.options.store
      .exclusive('audit-retention', () => this.remove())
      .catch((err: unknown) => {
        // The next sweep tries again; what was removed stays removed, the rest waits.
        this.log.warn({ err }, 'audit retention could not remove old entries');
        return 0;
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private async remove(): Promise<number> {
    const { store, settings, clock } = this.options;
    const removed: Record<AuditRemovalReason, number> = { rows: 0, age: 0 };
    if (settings.maxRows > 0) {
      const below = await store.auditFloor(settings.maxRows);
      if (below !== null) removed.rows = await this.batches('rows', { below });
    }
    const before = auditCutoff(clock.now(), settings.days);
    if (before !== undefined) removed.age = await this.batches('age', { before });
    const total = removed.rows + removed.age;
    if (total === 0) return 0;
    const kept = [
      settings.days > 0 ? `older than ${settings.days} days` : '',
      settings.maxRows > 0 ? `beyond the newest ${settings.maxRows}` : '',
    ].filter(Boolean);
    this.log.info(
      { removedByAge: removed.age, removedByRows: removed.rows },
      `audit retention removed ${total} entries (${kept.join(', ')})`,
    );
    await this.options.audit?.([
      {
        at: new Date(clock.now()).toISOString(),
        actor: RETENTION_ACTOR,
        solution: null,
        action: 'audit.remove',
        target: `${total} entries ${kept.join(' or ')}`,
        outcome: 'ok',
        correlationId: null,
        durationMs: null,
      },
    ]);
    return total;
  }

  /** Batches of `rule` until one removes nothing; the request thread free between two. */
  private async batches(reason: AuditRemovalReason, rule: AuditRemoval): Promise<number> {
    const limit = this.options.batch ?? AUDIT_REMOVE_BATCH;
    let total = 0;
    for (;;) {
      const count = await this.options.store.removeAudit(rule, limit);
      if (count === 0) return total;
      total += count;
      this.options.removed?.(reason, count);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
}
