// Node's `setImmediate`, which the library uses to give the event loop one turn (a paginated sync
// lets the next page's request start before writing this one): browsers have none, so esbuild's
// `inject` makes every free `setImmediate` in the browser build a zero-delay timer, the nearest the
// browser has. Without it, syncing a datasource with more than one page failed in the browser.
export function setImmediate<A extends unknown[]>(callback: (...args: A) => void, ...args: A): number {
  return setTimeout(callback, 0, ...args) as unknown as number;
}
