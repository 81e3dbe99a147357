import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { PlatformStore } from './store/types.js';

/** What the plugin hands a route's store: its options, and (for a route's own limits) the route. */
interface CounterOptions {
  readonly routeInfo?: { readonly method?: string | string[]; readonly url?: string };
}

/** How often the counts of this instance go to the store (and the other instances' come back). */
const SYNC_MS = 100;

interface Window {
  resetAtMs: number;
  /** The window's count in the store when last synced: every instance's requests. */
  known: number;
  /** This instance's requests since then. */
  unsent: number;
  readonly windowMs: number;
}

/** Counters of requests in windows, shared by every instance on the same database. */
export interface Counters {
  /** Counts one more in `key`'s window (made when none is live): the count and the time left. */
  hit(key: string, windowMs: number): { current: number; ttl: number };
  /** The count of `key`'s live window without counting (0 when none is live). */
  peek(key: string): { current: number; ttl: number };
  /** The same counters as @fastify/rate-limit's store. */
  readonly store: FastifyRateLimitStoreCtor;
}

/**
 * Window counters on the platform store's, so a user's requests count once across every instance
 * on the same database. Each instance decides from its own view (the shared count at the last sync
 * plus its own requests since) and sends its counts every 100 ms, not a database write per
 * request: across N instances a window can let through at most what the others did since their
 * last sync, never more than N times the limit. A route with limits of its own counts under its own
 * prefix, as the plugin's in-memory store keeps a map per route.
 */
export function rateLimitCounters(store: PlatformStore): Counters {
  const windows = new Map<string, Window>();
  let scheduled = false;

  const sync = async () => {
    scheduled = false;
    const now = Date.now();
    await Promise.all(
      [...windows].map(async ([key, w]) => {
        if (w.resetAtMs <= now && w.unsent === 0) {
          windows.delete(key);
          return;
        }
        const sent = w.unsent;
        w.unsent = 0;
        try {
          const shared = await store.rateLimitAdd(key, sent, w.windowMs, now);
          w.known = shared.count;
          w.resetAtMs = shared.resetAtMs;
        } catch {
          // The store is away (it says so to the requests themselves): keep the count for next time.
          w.unsent += sent;
        }
      }),
    );
  };

  const hit = (key: string, windowMs: number): { current: number; ttl: number } => {
    const now = Date.now();
    let w = windows.get(key);
    if (!w || w.resetAtMs <= now) {
      w = { resetAtMs: now + windowMs, known: 0, unsent: 0, windowMs };
      windows.set(key, w);
    }
    w.unsent++;
    if (!scheduled) {
      scheduled = true;
      setTimeout(() => void sync(), SYNC_MS).unref();
    }
    return { current: w.known + w.unsent, ttl: Math.max(0, w.resetAtMs - now) };
  };

  const peek = (key: string): { current: number; ttl: number } => {
    const now = Date.now();
    const w = windows.get(key);
    return !w || w.resetAtMs <= now
      ? { current: 0, ttl: 0 }
      : { current: w.known + w.unsent, ttl: w.resetAtMs - now };
  };

  const counters = (options: CounterOptions): FastifyRateLimitStore => {
    const route = options.routeInfo;
    const prefix = route?.url ? `${String(route.method)} ${route.url}|` : '';
    return {
      incr(key, done, timeWindow) {
        done(null, hit(`${prefix}${key}`, timeWindow));
      },
      child: (routeOptions) => counters(routeOptions as CounterOptions),
    };
  };
  // The plugin calls it with `new`; a constructor that returns an object gives that object.
  const ctor = function Counters(options: CounterOptions) {
    return counters(options);
  } as unknown as FastifyRateLimitStoreCtor;
  return { hit, peek, store: ctor };
}
