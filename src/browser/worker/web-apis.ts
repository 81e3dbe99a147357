// The browser APIs this folder uses, typed here: the project compiles against Node's types (no DOM
// library), and these few members are all the worker needs.

export interface LockInfo {
  readonly name?: string;
  readonly clientId?: string;
}

export interface LockManager {
  request<T>(name: string, callback: () => Promise<T> | T): Promise<T>;
  query(): Promise<{ held?: LockInfo[]; pending?: LockInfo[] }>;
}

interface WorkerNavigator {
  readonly locks?: LockManager;
  readonly storage?: { getDirectory?: () => Promise<unknown> };
}

function browserNavigator(): WorkerNavigator | undefined {
  return (globalThis as { navigator?: WorkerNavigator }).navigator;
}

/** Web Locks (every secure context has them), or undefined. */
export function webLocks(): LockManager | undefined {
  return browserNavigator()?.locks;
}

/**
 * Why the Origin Private File System cannot hold the database here, or undefined when it can: the
 * SAH pool VFS needs `navigator.storage.getDirectory()` and synchronous access handles (dedicated
 * workers only), and Web Locks to share the files between tabs.
 */
export function opfsUnavailableReason(): string | undefined {
  const nav = browserNavigator();
  if (typeof nav?.storage?.getDirectory !== 'function') {
    return 'the Origin Private File System is not available (navigator.storage.getDirectory is missing: not a secure context, or an old browser)';
  }
  if (!('FileSystemSyncAccessHandle' in globalThis)) {
    return 'synchronous OPFS access handles are not available (the database must run in a dedicated worker)';
  }
  if (!nav.locks) return 'Web Locks are not available, so tabs could not share the database';
  return undefined;
}
