import type { CredentialRecords } from '../../auth/provider.js';
import type { OAuthCredential, TokenSet } from '../../auth/store.js';
import type { SqlDatabase } from '../../local/database.js';

// The browser's side of spec 5: a `useLocalCall` function runs in the worker with the user's own
// OAuth tokens. Its credential's configuration (endpoints, client id, scopes: never a secret, the
// app is a public PKCE client) is copied from the platform at sign-in, and kept with the tokens in
// the client's own database (OPFS, readable by this origin only), never in localStorage or a URL.

const TABLE = '_restfn_credentials';

/** A signed-in credential as kept: its configuration and its latest tokens. */
export interface SignedIn {
  readonly config: OAuthCredential;
  readonly tokens: Omit<TokenSet, 'kind'>;
}

/** The credentials table of the client's database, as `StoreCredentialProvider` reads it. */
export class CredentialTable implements CredentialRecords {
  constructor(private readonly db: () => SqlDatabase) {}

  get(key: string): OAuthCredential | undefined {
    return this.row(key)?.config;
  }

  getTokens(key: string): TokenSet | undefined {
    const tokens = this.row(key)?.tokens;
    return tokens ? { kind: 'token', ...tokens } : undefined;
  }

  setTokens(key: string, tokens: Omit<TokenSet, 'kind'>): void {
    this.ensure();
    this.db()
      .prepare(`UPDATE ${TABLE} SET tokens = ? WHERE key = ?`)
      .run(JSON.stringify(plain(tokens)), key);
  }

  clearTokens(key: string, ifRefreshToken?: string): boolean {
    const current = this.getTokens(key);
    if (!current) return false;
    if (ifRefreshToken !== undefined && current.refreshToken !== ifRefreshToken) return false;
    this.db().prepare(`UPDATE ${TABLE} SET tokens = NULL WHERE key = ?`).run(key);
    return true;
  }

  keys(): readonly string[] {
    this.ensure();
    return (this.db().prepare(`SELECT key FROM ${TABLE} ORDER BY key`).all() as Array<{ key: string }>).map(
      (r) => r.key,
    );
  }

  /** A sign-in's result: the configuration it used and its tokens, in one statement. */
  signIn(key: string, signedIn: SignedIn): void {
    this.ensure();
    this.db()
      .prepare(
        `INSERT INTO ${TABLE} (key, config, tokens) VALUES (?, ?, ?)
         ON CONFLICT(key) DO UPDATE SET config = excluded.config, tokens = excluded.tokens`,
      )
      .run(key, JSON.stringify(signedIn.config), JSON.stringify(plain(signedIn.tokens)));
  }

  /** Forgets the credential (configuration and tokens); whether it was kept. */
  signOut(key: string): boolean {
    this.ensure();
    return this.db().prepare(`DELETE FROM ${TABLE} WHERE key = ?`).run(key).changes > 0;
  }

  private row(
    key: string,
  ): { config: OAuthCredential; tokens: Omit<TokenSet, 'kind'> | undefined } | undefined {
    this.ensure();
    const row = this.db().prepare(`SELECT config, tokens FROM ${TABLE} WHERE key = ?`).get(key) as
      | { config: string; tokens: string | null }
      | undefined;
    if (!row) return undefined;
    return { config: JSON.parse(row.config), tokens: row.tokens ? JSON.parse(row.tokens) : undefined };
  }

  private ensure(): void {
    this.db().exec(
      `CREATE TABLE IF NOT EXISTS ${TABLE} (key TEXT PRIMARY KEY, config TEXT NOT NULL, tokens TEXT)`,
    );
  }
}

/** Only the token fields (a `kind` read back is not stored again). */
function plain(tokens: Omit<TokenSet, 'kind'>): Omit<TokenSet, 'kind'> {
  return {
    accessToken: tokens.accessToken,
    ...(tokens.refreshToken ? { refreshToken: tokens.refreshToken } : {}),
    ...(tokens.expiresAt !== undefined ? { expiresAt: tokens.expiresAt } : {}),
  };
}
