import { readFileSync } from 'node:fs';
import { UsageError } from '../errors/restfn-error.js';
import { ImportError } from './errors.js';

/** An address that stands in for one whose variable has no value (the import then fails). */
export const MISSING_ADDRESS = 'https://missing-variable.invalid';

/**
 * The variables of one import: `--vars FILE` (a Postman environment export, or a JSON object of
 * name: value), then each `--var name=value` over it. Each lookup is recorded, so the import can
 * say which given names the description never asked for (a typo, or another description's), and
 * each variable the description needs and nobody gave is collected, so one run names them all.
 */
export class ImportVariables {
  private readonly given = new Map<string, string>();
  private readonly asked = new Set<string>();
  /** Names given by `--var` (a file's unused entries are no typo). */
  private readonly flagged = new Set<string>();
  /** Entries a Postman environment marks secret: never copied into a file. */
  private readonly secrets = new Set<string>();
  private readonly missed = new Map<string, { example: string; where: string }>();

  constructor(pairs: readonly string[] = [], file?: string) {
    if (file !== undefined) {
      for (const [name, value, secret] of readVarsFile(file)) {
        this.given.set(name, value);
        if (secret) this.secrets.add(name);
      }
    }
    for (const pair of pairs) {
      const at = pair.indexOf('=');
      if (at <= 0)
        throw new UsageError(
          `--var takes name=value (got '${pair}'), for example --var baseUrl=https://api.example.com`,
        );
      this.given.set(pair.slice(0, at), pair.slice(at + 1));
      this.flagged.add(pair.slice(0, at));
      this.secrets.delete(pair.slice(0, at));
    }
  }

  /** Whether the value of `name` is a secret (a Postman environment's `type: secret`). */
  isSecret(name: string): boolean {
    return this.secrets.has(name);
  }

  /** The value given for `name`, if any. */
  get(name: string): string | undefined {
    this.asked.add(name);
    return this.given.get(name);
  }

  has(name: string): boolean {
    return this.given.has(name);
  }

  /** `--var` names the description never asked for. */
  unused(): string[] {
    return [...this.flagged].filter((name) => !this.asked.has(name));
  }

  /** Records a variable the description needs and nobody gave (the first place that needs it). */
  miss(name: string, example: string, where: string): void {
    if (!this.missed.has(name)) this.missed.set(name, { example, where });
  }

  /** Throws IMPORT_VARIABLE_MISSING naming every variable missed, each as the `--var` to pass. */
  throwIfMissing(): void {
    if (this.missed.size === 0) return;
    const list = [...this.missed].map(([name, { example, where }]) => `--var ${name}=${example} (${where})`);
    throw new ImportError(
      'IMPORT_VARIABLE_MISSING',
      `the description needs ${this.missed.size === 1 ? 'a variable' : `${this.missed.size} variables`} with no value: pass ${list.join(', ')}; or give them in a file with --vars FILE (a Postman environment export)`,
    );
  }
}

/** `--vars FILE`: a Postman environment export (`values: [{key, value, enabled}]`) or `{name: value}`. */
function readVarsFile(file: string): Array<[string, string, boolean]> {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      `--vars ${file}: ${code === 'ENOENT' ? 'no such file' : code ? `cannot read it (${code})` : `not JSON (${(error as Error).message})`}; give a Postman environment export or a JSON object of name: value`,
    );
  }
  const values = (data as { values?: unknown } | null)?.values;
  if (Array.isArray(values)) {
    return values
      .filter((v) => v && typeof v === 'object' && typeof v.key === 'string' && v.enabled !== false)
      .map((v) => [v.key as string, String(v.value ?? ''), v.type === 'secret']);
  }
  if (data && typeof data === 'object' && !Array.isArray(data)) {
    return Object.entries(data as Record<string, unknown>)
      .filter(([, v]) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
      .map(([k, v]) => [k, String(v), false]);
  }
  throw new UsageError(
    `--vars ${file} holds neither a Postman environment (values: [...]) nor an object of name: value`,
  );
}
