import { PlatformClient, SERVER_ENV } from '../../client/platform-client.js';
import type { CredentialKey } from '../../language/completion/index.js';
import type { LanguageService } from '../../language/service.js';
import { openCredentials } from '../credentials.js';
import { EDITOR_SERVER_ENV, editorPlatformTarget, readLogins } from '../platform-logins.js';

/** How long the keys read are used before they are read again (when completion next needs them). */
export const CREDENTIAL_KEYS_MAX_AGE_MS = 30_000;
/** A platform slower than this gives no keys for this completion (the local ones still come). */
const PLATFORM_WAIT_MS = 2_000;

/**
 * The credential keys completion offers, for `restfn lsp`: the solution's local store (what
 * `restfn credentials list` reads: keys and kinds, never a value) and, when `RESTFN_LSP_SERVER` (the
 * editor's setting) or `RESTFN_SERVER` is set with a token for it (`editorPlatformTarget`), the
 * platform's credentials of this solution.
 * Read lazily, when completion first asks and again once older than the max age; a store that
 * cannot be read, or a platform that is down, gives no keys from there and never an error.
 */
export class CredentialKeys {
  private keys: readonly CredentialKey[] = [];
  private readAt: number | undefined;
  private asked = false;

  constructor(
    private readonly root: string,
    private readonly solutionName: () => string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly now: () => number = Date.now,
  ) {}

  /** The keys as last read (what the language service's source gives); notes that they were wanted. */
  current(): readonly CredentialKey[] {
    this.asked = true;
    return this.keys;
  }

  /** Whether `current` was called since the last `take`; clears the note. */
  takeAsked(): boolean {
    const was = this.asked;
    this.asked = false;
    return was;
  }

  stale(): boolean {
    return this.readAt === undefined || this.now() - this.readAt >= CREDENTIAL_KEYS_MAX_AGE_MS;
  }

  async refresh(): Promise<void> {
    const local = this.local();
    const remote = await this.platform();
    this.keys = [...local, ...remote];
    this.readAt = this.now();
  }

  private local(): CredentialKey[] {
    try {
      const store = openCredentials(this.root);
      try {
        return store.list().map((c) => ({ key: c.key, kind: c.kind, origin: 'local' as const }));
      } finally {
        store.close();
      }
    } catch {
      return [];
    }
  }

  private async platform(): Promise<CredentialKey[]> {
    if (!this.env[EDITOR_SERVER_ENV] && !this.env[SERVER_ENV]) return [];
    let timer: NodeJS.Timeout | undefined;
    try {
      let logins: ReturnType<typeof readLogins> = { platforms: {} };
      try {
        logins = readLogins(this.env);
      } catch {
        // An unreadable logins file: RESTFN_TOKEN alone may still do.
      }
      const target = editorPlatformTarget(this.env, logins);
      if (!target.server || !target.token) return [];
      const client = new PlatformClient(target.server, target.token);
      const path = `/api/v1/solutions/${encodeURIComponent(this.solutionName())}/credentials`;
      const answer = await Promise.race([
        client.request<{ credentials?: Array<{ key?: unknown; kind?: unknown }> }>('GET', path),
        new Promise<undefined>((done) => {
          timer = setTimeout(() => done(undefined), PLATFORM_WAIT_MS);
          timer.unref();
        }),
      ]);
      return (answer?.credentials ?? [])
        .filter((c) => typeof c.key === 'string')
        .map((c) => ({ key: c.key as string, kind: String(c.kind ?? ''), origin: 'platform' as const }));
    } catch {
      return [];
    } finally {
      if (timer) clearTimeout(timer);
    }
  }
}

const SERVICES = new WeakMap<LanguageService, CredentialKeys>();

/**
 * The one reader of credential keys for a service (completion and quick fixes share it): made,
 * and given to the service as its source, on first use.
 */
export function credentialKeysOf(s: LanguageService): CredentialKeys {
  let keys = SERVICES.get(s);
  if (!keys) {
    const made = new CredentialKeys(s.root, () => s.solution().name, process.env);
    s.setCredentialKeys(() => made.current());
    SERVICES.set(s, made);
    keys = made;
  }
  return keys;
}
