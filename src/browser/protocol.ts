// The messages between the client (the page's thread, client/) and its worker (worker/): plain data
// only (structured clone). Requests carry an id; the worker answers each once, and sends events
// (tables changed, the platform reachable or not) without one.

export interface ClientOptions {
  /** The platform's address, e.g. https://platform.example. */
  readonly server: string;
  /** The app user's API token (sent in the Authorization header only, never in a URL). */
  readonly token: string;
  /** The published solution to run. */
  readonly solution: string;
  /** The local database's name (one per app and user): OPFS files and locks are named after it. @default solution */
  readonly database?: string;
  /**
   * The app's sign-in redirect page (same origin as the app; it calls `completeSignIn()`), where
   * the popup of `client.signIn(key)` comes back: registered with the OAuth provider as the
   * client's redirect URI. May be given to `signIn` instead.
   */
  readonly signInRedirect?: string;
}

export type Method =
  | 'open'
  | 'sync'
  | 'query'
  | 'rows'
  | 'action'
  | 'queuedCommands'
  | 'pushQueue'
  | 'signInStart'
  | 'signInFinish'
  | 'signOut'
  | 'connectUrl'
  /** The page's `online` (true) or `offline` (false) event. */
  | 'network'
  /** A live query's start: its rows and the tables it reads. */
  | 'watch'
  | 'status'
  | 'close';

export interface Request {
  readonly id: number;
  readonly method: Method;
  readonly args: readonly unknown[];
}

/** A failure as the page sees it: restfn's stable code, its message, and what it concerns. */
export interface WireError {
  readonly name: string;
  readonly code: string;
  readonly message: string;
  /** The credential concerned (`CONNECTION_REQUIRED`, a sign-in needed). */
  readonly credential?: string;
}

export type Response =
  | { readonly id: number; readonly result: unknown }
  | { readonly id: number; readonly error: WireError };

export type WorkerEvent =
  | { readonly event: 'change'; readonly tables: readonly string[] }
  | { readonly event: 'status'; readonly status: ClientStatus };

export interface ClientStatus {
  /** Whether the platform answered the last request (false: offline or unreachable). */
  readonly online: boolean;
  /** The published version the client runs, and whether it came from this device's copy. */
  readonly version: number;
  readonly fromCache: boolean;
  /** Whether the local database persists (OPFS) or lives in memory only (no OPFS in this browser). */
  readonly persistent: boolean;
  /** Commands waiting in the queue. */
  readonly queued: number;
}

/** What the sign-in redirect page posts to its opener (same origin only): the redirect's query. */
export interface SignInMessage {
  readonly type: 'restfn:sign-in';
  /** `?code=...&state=...` (or `?error=...`): never a token. */
  readonly search: string;
}

/** Every table: a change whose tables are not known one by one. */
export const ALL_TABLES = '*';
