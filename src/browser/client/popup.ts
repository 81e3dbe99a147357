import type { SignInMessage } from '../protocol.js';
import { RestfnClientError } from './rpc.js';

const FEATURES = 'popup,width=520,height=680';

/**
 * Opens the sign-in window now, blank: a browser lets a page open a window only during the user's
 * click, and the address comes from the worker a moment later (`navigate`).
 */
export function openPopup(name: string): Window {
  const popup = globalThis.open?.('about:blank', name, FEATURES);
  if (!popup) {
    throw new RestfnClientError({
      name: 'RestfnClientError',
      code: 'LOGIN_FAILED',
      message:
        'the browser did not open the sign-in window (a popup blocker, or signIn/connect not called from a click)',
    });
  }
  return popup;
}

/** How often a closed window is looked for: a closed popup sends nothing, so it is asked. */
const CLOSED_POLL_MS = 500;

/**
 * The redirect page's message from `popup` (completeSignIn): only from that window and this
 * page's origin, with the expected state. Rejects when the window closes first.
 */
export function redirectFrom(popup: Window, state: string): Promise<SignInMessage> {
  return new Promise((resolve, reject) => {
    const done = () => {
      globalThis.removeEventListener('message', onMessage);
      clearInterval(poll);
    };
    const onMessage = (event: MessageEvent) => {
      if (event.origin !== globalThis.location.origin || event.source !== popup) return;
      const data = event.data as Partial<SignInMessage> | undefined;
      if (data?.type !== 'restfn:sign-in' || typeof data.search !== 'string') return;
      if (new URLSearchParams(data.search).get('state') !== state) return;
      done();
      resolve(data as SignInMessage);
    };
    const poll = setInterval(() => {
      if (!popup.closed) return;
      done();
      reject(
        new RestfnClientError({
          name: 'RestfnClientError',
          code: 'LOGIN_FAILED',
          message: 'the sign-in window was closed before the sign-in completed',
        }),
      );
    }, CLOSED_POLL_MS);
    globalThis.addEventListener('message', onMessage);
  });
}

/** Resolves when `popup` is closed (the platform's connect flow ends on its own page, on its origin). */
export function closed(popup: Window): Promise<void> {
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      if (!popup.closed) return;
      clearInterval(poll);
      resolve();
    }, CLOSED_POLL_MS);
  });
}

/**
 * For the app's sign-in redirect page: hands the redirect's query (code and state) to the page that
 * opened the popup (this origin only), takes it off the address bar and closes the window. Returns
 * false when this page was not opened by a sign-in (no opener: nothing sent).
 */
export function completeSignIn(): boolean {
  const opener = globalThis.opener as Window | null;
  const search = globalThis.location.search;
  // The code is single-use and bound to the verifier in the worker; still, it leaves the history.
  globalThis.history?.replaceState(null, '', globalThis.location.pathname);
  if (!opener) return false;
  opener.postMessage({ type: 'restfn:sign-in', search } satisfies SignInMessage, globalThis.location.origin);
  globalThis.close();
  return true;
}
