/**
 * Deadlines without a Node timer each. Every execution has a deadline and every request another,
 * almost all of them cleared long before they pass; a `setTimeout` + `clearTimeout` pair per call
 * made Node create and drop its timer list for that duration each time (the list empties between
 * sequential calls), a cost the profile showed on every call.
 *
 * All deadlines of one duration pass in the order they were set, so a first-in-first-out queue per
 * duration with a single Node timer for its oldest entry does the same work: setting a deadline is
 * a push, clearing one a flag. The timer keeps the process alive while a deadline is pending, as a
 * `setTimeout` of its own would (and only then).
 */
export interface PendingDeadline {
  /** Clears the deadline: `fire` is not called. */
  clear(): void;
}

class Entry implements PendingDeadline {
  cleared = false;

  constructor(
    readonly queue: Queue,
    readonly due: number,
    readonly fire: () => void,
  ) {}

  clear(): void {
    if (this.cleared) return;
    this.cleared = true;
    this.queue.cleared();
  }
}

class Queue {
  private entries: Entry[] = [];
  private head = 0;
  private pending = 0;
  private timer: NodeJS.Timeout | undefined;
  /** When the timer is set to fire (performance.now() time). */
  private timerDue = Number.POSITIVE_INFINITY;

  constructor(private readonly ms: number) {}

  add(fire: () => void): Entry {
    const entry = new Entry(this, performance.now() + this.ms, fire);
    this.entries.push(entry);
    // (`?.()`: in the browser client a timer is a number, with nothing to hold a process.)
    if (this.pending++ === 0) this.timer?.ref?.();
    if (this.timer === undefined || entry.due < this.timerDue) this.arm(entry.due);
    return entry;
  }

  cleared(): void {
    if (--this.pending === 0) {
      // Nothing pending: drop every entry, and let the process exit if nothing else holds it.
      this.entries = [];
      this.head = 0;
      this.timer?.unref?.();
      return;
    }
    this.dropCleared();
  }

  /** Drops cleared entries from the front, and compacts when most of the rest are cleared too. */
  private dropCleared(): void {
    const entries = this.entries;
    while (this.head < entries.length && entries[this.head]!.cleared) this.head++;
    if (this.head > 1024 && this.head * 2 > entries.length) {
      this.entries = entries.slice(this.head);
      this.head = 0;
    }
    if (entries.length - this.head > 4 * this.pending + 1024) {
      this.entries = this.entries.filter((e) => !e.cleared);
      this.head = 0;
    }
  }

  private arm(due: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(() => this.run(), Math.max(1, Math.ceil(due - performance.now())));
    if (this.pending === 0) this.timer.unref?.();
  }

  private run(): void {
    this.timer = undefined;
    this.timerDue = Number.POSITIVE_INFINITY;
    const now = performance.now();
    const entries = this.entries;
    const due: Entry[] = [];
    while (this.head < entries.length) {
      const entry = entries[this.head]!;
      if (!entry.cleared && entry.due > now) break;
      this.head++;
      if (!entry.cleared) due.push(entry);
    }
    for (const entry of due) {
      entry.cleared = true;
      this.pending--;
    }
    if (this.head === entries.length) {
      this.entries = [];
      this.head = 0;
    }
    const next = this.entries[this.head];
    if (next) this.arm(next.due);
    for (const entry of due) entry.fire();
  }
}

const queues = new Map<number, Queue>();

/** Calls `fire` once `ms` milliseconds have passed, unless cleared first. */
export function deadlineAfter(ms: number, fire: () => void): PendingDeadline {
  let queue = queues.get(ms);
  if (!queue) {
    queue = new Queue(ms);
    queues.set(ms, queue);
  }
  return queue.add(fire);
}
