import { UsageError } from '../errors/restfn-error.js';

/**
 * The `--var name=value` values of one import. Each lookup is recorded, so the import can say which
 * given names the description never asked for (a typo, or a name of another description).
 */
export class ImportVariables {
  private readonly given = new Map<string, string>();
  private readonly asked = new Set<string>();

  constructor(pairs: readonly string[] = []) {
    for (const pair of pairs) {
      const at = pair.indexOf('=');
      if (at <= 0)
        throw new UsageError(
          `--var takes name=value (got '${pair}'), for example --var baseUrl=https://api.example.com`,
        );
      this.given.set(pair.slice(0, at), pair.slice(at + 1));
    }
  }

  /** The value given for `name`, if any. */
  get(name: string): string | undefined {
    this.asked.add(name);
    return this.given.get(name);
  }

  has(name: string): boolean {
    return this.given.has(name);
  }

  /** Given names the description never asked for. */
  unused(): string[] {
    return [...this.given.keys()].filter((name) => !this.asked.has(name));
  }
}
