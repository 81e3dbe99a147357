import { PlatformError } from './errors.js';

/**
 * Executions in flight per solution, held to the operator's quota (`--max-concurrent-per-solution`):
 * one solution's burst (or its slow remote) can fill only its own share of the instance; past it
 * the caller gets 429 RATE_LIMITED with Retry-After at once, and other solutions are untouched.
 */
export class SolutionSlots {
  private readonly busy = new Map<string, number>();

  constructor(private readonly perSolution: number) {}

  /** Executions in flight, by solution (the metrics read it). */
  inFlight(): ReadonlyMap<string, number> {
    return this.busy;
  }

  /** Takes a slot, or throws RATE_LIMITED; the returned function gives it back (once). */
  take(solution: string): () => void {
    const held = this.busy.get(solution) ?? 0;
    if (held >= this.perSolution) {
      throw new PlatformError(
        'RATE_LIMITED',
        `solution '${solution}' already runs ${held} executions at once, this platform's most per solution; try again in a moment`,
        undefined,
        1,
      );
    }
    this.busy.set(solution, held + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.busy.get(solution) ?? 1) - 1;
      if (left === 0) this.busy.delete(solution);
      else this.busy.set(solution, left);
    };
  }
}
