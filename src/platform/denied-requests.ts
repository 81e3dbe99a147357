import type { AuditEntry } from './store/types.js';

/** How often the counts of refused requests become audit entries. */
const FLUSH_MS = 60_000;
/** Distinct (who, what, why) kept between flushes; a flood of new keys is counted under one. */
const MAX_KEYS = 1000;

interface Count {
  readonly action: string;
  readonly actor: string;
  readonly target: string;
  readonly outcome: string;
  readonly address: string;
  count: number;
  first: string;
  last: string;
}

/**
 * Refused requests (401, 403, 429) for the audit, aggregated: one entry per caller, route and
 * reason per minute with how many there were, so a flood of bad tokens is a few rows, not a
 * write per request (which would make the audit itself the way to slow the platform down).
 */
export class DeniedRequests {
  private counts = new Map<string, Count>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly write: (entries: AuditEntry[]) => Promise<void>) {
    this.timer = setInterval(() => void this.flush(), FLUSH_MS).unref();
  }

  record(denial: { actor: string; method: string; route: string; outcome: string; address: string }): void {
    const { method, route, ...rest } = denial;
    this.count({ ...rest, action: 'denied', target: `${method} ${route}` });
  }

  /**
   * Counts any event of a kind that a flood could make: its entry says how many there were (failed
   * sign-ins are counted here too, under their own action).
   */
  count(event: { action: string; actor: string; target: string; outcome: string; address: string }): void {
    const { action, target } = event;
    let key = `${action}\0${event.actor}\0${target}\0${event.outcome}\0${event.address}`;
    if (!this.counts.has(key) && this.counts.size >= MAX_KEYS) key = 'overflow';
    const now = new Date().toISOString();
    const held = this.counts.get(key);
    if (held) {
      held.count++;
      held.last = now;
      return;
    }
    this.counts.set(
      key,
      key === 'overflow'
        ? {
            action: 'denied',
            actor: 'many',
            target: 'many',
            outcome: 'many',
            address: 'many',
            count: 1,
            first: now,
            last: now,
          }
        : {
            action,
            actor: event.actor,
            target,
            outcome: event.outcome,
            address: event.address,
            count: 1,
            first: now,
            last: now,
          },
    );
  }

  /** Writes what was counted (at shutdown too). */
  async flush(): Promise<void> {
    if (this.counts.size === 0) return;
    const counted = [...this.counts.values()];
    this.counts = new Map();
    await this.write(
      counted.map((c) => ({
        at: c.last,
        actor: c.actor,
        solution: null,
        action: c.action,
        target: c.target,
        outcome: c.outcome,
        correlationId: null,
        durationMs: null,
        detail: JSON.stringify({ count: c.count, first: c.first, last: c.last, address: c.address }),
      })),
    ).catch(() => undefined);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
