import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { PlatformStore } from './store/types.js';

/** What the plugin hands a route's store: its options, and (for a route's own limits) the route. */
interface CounterOptions {
  readonly routeInfo?: { readonly method?: string | string[]; readonly url?: string };
}

/**
 * @fastify/rate-limit's store interface on the platform store's counters, so a token's requests
 * are counted once across every instance on the same database. A route with limits of its own
 * (sign-in) counts under its own prefix, as the plugin's in-memory store keeps a map per route.
 */
export function rateLimitCounters(store: PlatformStore): FastifyRateLimitStoreCtor {
  const counters = (options: CounterOptions): FastifyRateLimitStore => {
    const route = options.routeInfo;
    const prefix = route?.url ? `${String(route.method)} ${route.url}|` : '';
    return {
      incr(key, done, timeWindow) {
        const now = Date.now();
        store.rateLimitHit(`${prefix}${key}`, timeWindow, now).then(
          ({ count, resetAtMs }) => done(null, { current: count, ttl: Math.max(0, resetAtMs - now) }),
          (error: Error) => done(error),
        );
      },
      child: (routeOptions) => counters(routeOptions as CounterOptions),
    };
  };
  // The plugin calls it with `new`; a constructor that returns an object gives that object.
  return function Counters(options: CounterOptions) {
    return counters(options);
  } as unknown as FastifyRateLimitStoreCtor;
}
